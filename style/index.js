import './base.css';
import './figures.css';
