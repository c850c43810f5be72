export * from './errors';
export * from './io';
export * from './stats';
export * from './chat';
export * from './resources/index';
export * from './python';
export * from './python-json';
export * from './runs/index';
