export * from './schema';
export * from './writer';
export * from './reader';
export * from './compare';
