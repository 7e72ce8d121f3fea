// compactRequestBody: the body text crosses into the main module once, and
// the changed messages' texts are spliced back here.
import { sharedUploads } from './uploads.js';

/**
 * compactRequestBody over the main module: the body text crosses in once;
 * what comes back is each changed message's text and the UTF-16 range it
 * replaces, spliced here into the caller's string (the same string when
 * nothing changed).
 */
function requestBodyCompaction(main) {
  return function compactRequestBody(body, options) {
    return main.__compactRequestBody(body, sharedUploads(options)).then(({ ranges, texts, report }) => {
      if (texts.length === 0) return { body, report };
      let out = '';
      let at = 0;
      for (let k = 0; k < texts.length; k++) {
        out += body.slice(at, ranges[2 * k]) + texts[k];
        at = ranges[2 * k + 1];
      }
      return { body: out + body.slice(at), report };
    });
  };
}

export { requestBodyCompaction };
