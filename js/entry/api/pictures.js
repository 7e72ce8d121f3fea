// The pictures the main module puts where an API takes a picture and nothing
// else: it leaves the PNG encoder out, and the extras module draws them.

/**
 * A function handing the main module, once it can take it (on the first
 * call that may need it: in browsers the modules are instantiated by
 * `init()`, after binding), the extras module's drawing.
 */
function pictureDrawing(main, extras) {
  let handed = false;
  return function handOver() {
    if (handed) return;
    main.__setPictureDrawer((text) => extras().drawPicture(text));
    handed = true;
  };
}

export { pictureDrawing };
