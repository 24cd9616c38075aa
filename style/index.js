import './base.css';
import './figures.css';
import './kernel-bridge.css';
