// The Node fitting rows of `npm run bench`: fitContext (the codec module)
// against jimp (pure JavaScript) and sharp (native libvips), the same photo
// fitted to the same size.

/**
 * `photoRuns`: the photo for each run (each with new text: ctxpack
 * remembers what its resizer made of a payload); `photo` the plain one;
 * `time(fn)` the median ms of `fn`. Prints the rows and returns the figures.
 */
export async function benchNodeFit(ctx, { photoRuns, photo, photoSize, model, time }) {
  const { Jimp } = await import('jimp');
  const sharp = (await import('sharp')).default;
  const fitMessages = (jpeg) => [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: jpeg } }, { type: 'text', text: 'what is this?' }] }];
  let fitReport;
  let fitRun = 0;
  const nodeFit = await time(async () => {
    ({ report: fitReport } = await ctx.fitContext(fitMessages(photoRuns[fitRun++]), { model }));
  });
  const { width: fw, height: fh } = fitReport.images[0].after;
  const jimpMs = await time(async () => {
    const img = await Jimp.read(Buffer.from(photo, 'base64'));
    img.resize({ w: fw, h: fh });
    (await img.getBuffer('image/jpeg', { quality: 85 })).toString('base64');
  });
  const sharpMs = await time(async () => {
    (await sharp(Buffer.from(photo, 'base64')).resize(fw, fh).jpeg({ quality: 85 }).toBuffer()).toString('base64');
  });
  console.log(`\nfit in Node: one ${photoSize} JPEG to ${model} (${fw}×${fh}); × = time relative to ctxpack`);
  console.log(`  fitContext (codec module) ${nodeFit.toFixed(1).padStart(8)} ms`);
  console.log(`  jimp (pure JavaScript)    ${jimpMs.toFixed(1).padStart(8)} ms   ctxpack is ${(jimpMs / nodeFit).toFixed(2)}× faster`);
  console.log(`  sharp (native libvips)    ${sharpMs.toFixed(1).padStart(8)} ms   ctxpack takes ${(nodeFit / sharpMs).toFixed(2)}× sharp's time`);
  return { ctxpack: nodeFit, jimp: jimpMs, sharp: sharpMs, width: fw, height: fh };
}
