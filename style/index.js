import './base.css';
import './kernel-bridge.css';
