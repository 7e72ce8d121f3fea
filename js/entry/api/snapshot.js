// What was read of a message, to tell on a later call whether it is, leaf
// by leaf, unchanged (the message memory's comparison; see memory.js).

/** Marks an array, then its length, in a snapshot. */
const ARRAY = {};
/** Marks an object, then its number of keys, in a snapshot. */
const OBJECT = {};

/**
 * What was read of a message, to tell next time whether it is unchanged
 * ({@link unchanged}): one flat list, in the order a walk meets them, of
 * every leaf (strings compared by value), each array's length, each
 * object's keys in order. `null` when a message holds anything but plain
 * objects, arrays and primitives (a `Uint8Array`, a class instance, a
 * function), or nests deeper than the library reads: such a message is
 * read on every call.
 */
function snapshot(message) {
  const flat = [];
  return record(message, flat, 0) ? flat : null;
}

function record(value, flat, depth) {
  if (typeof value !== 'object' || value === null) {
    flat.push(value);
    return typeof value !== 'function';
  }
  if (depth > 256) return false;
  if (Array.isArray(value)) {
    flat.push(ARRAY, value.length);
    for (let i = 0; i < value.length; i++) if (!record(value[i], flat, depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  const at = flat.length;
  flat.push(OBJECT, 0);
  let keys = 0;
  for (const key in value) {
    flat.push(key);
    if (!record(value[key], flat, depth + 1)) return false;
    keys++;
  }
  flat[at + 1] = keys;
  return true;
}

/** Whether `message` is, leaf by leaf, what `flat` recorded. */
function unchanged(message, flat) {
  return matches(message, flat, 0) === flat.length;
}

/** Where `value` ends in `flat` when it matches from `at`, else -1. */
function matches(value, flat, at) {
  if (typeof value !== 'object' || value === null) return flat[at] === value ? at + 1 : -1;
  if (Array.isArray(value)) {
    if (flat[at] !== ARRAY || flat[at + 1] !== value.length) return -1;
    at += 2;
    for (let i = 0; i < value.length && at >= 0; i++) at = matches(value[i], flat, at);
    return at;
  }
  if (flat[at] !== OBJECT) return -1;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return -1;
  const keys = flat[at + 1];
  at += 2;
  let n = 0;
  for (const key in value) {
    if (n === keys || flat[at] !== key) return -1;
    at = matches(value[key], flat, at + 1);
    if (at < 0) return -1;
    n++;
  }
  return n === keys ? at : -1;
}

export { snapshot, unchanged };
