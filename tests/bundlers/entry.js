// What an app bundled with webpack or Vite writes: a plain import, no init.
import { parseMarkdownImages, toMultimodal, Stash, compactContext } from 'ctxpack';

window.bundledRun = async (dataUrl) => {
  const images = parseMarkdownImages('see ![a](b.png)');
  const { content } = await toMultimodal(`hi ![x](${dataUrl})`);
  const stash = await Stash.open({ backend: 'memory' });
  const { report } = await compactContext([{ role: 'user', content }, { role: 'user', content: 'next' }], { stash });
  return { url: images[0].url, parts: content.map((p) => p.type), stashed: report.stashed };
};
window.bundledReady = true;
