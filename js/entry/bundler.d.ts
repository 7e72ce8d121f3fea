export * from './ctxpack.js';
