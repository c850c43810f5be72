export { main, EXIT } from './main';
export { UsageError } from './util';
