import cjs from './file-stash.js';
export const { fileStash } = cjs;
