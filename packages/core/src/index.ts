export * from './errors';
export * from './io';
export { readZip } from './zip';
export * from './stats';
export * from './chat';
export * from './resources/index';
export * from './python/number';
export * from './python/json';
export * from './runs/index';
