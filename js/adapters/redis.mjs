// ctxpack/redis for ES modules: the CommonJS module's export (one copy of
// its code, whichever way an app loads it).
import redis from './redis.cjs';

export const { redisStash } = redis;
