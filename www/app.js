// The ctxpack demo page: plain ES modules, the web build with its explicit init.
import init, { toMultimodal, CtxpackError } from '../dist/web/ctxpack.js';

await init();

const $ = (id) => document.getElementById(id);
const composer = $('composer');
const status = (text, isError = false) => {
  $('status').textContent = text;
  $('status').classList.toggle('error', isError);
};

/** Reads a File as a data URL. */
const readAsDataUrl = (file) =>
  new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(r.result);
    r.onerror = () => reject(r.error);
    r.readAsDataURL(file);
  });

/** Inserts `![name](data:…)` at the cursor for each image file. */
async function insertImages(files) {
  for (const file of files) {
    if (!file.type.startsWith('image/')) continue;
    const url = await readAsDataUrl(file);
    const md = `![${file.name.replace(/[[\]]/g, '')}](${url})`;
    const at = composer.selectionStart ?? composer.value.length;
    composer.value = composer.value.slice(0, at) + md + composer.value.slice(at);
  }
  await convert();
}

/** Shortens data URLs and long base64 for display; the real payload is untouched. */
const shortJson = (value) =>
  JSON.stringify(value, (k, v) => (typeof v === 'string' && v.length > 120 ? `${v.slice(0, 60)}…(${v.length} chars)` : v), 2);

function imageSrc(part) {
  if (part.type === 'image_url') return part.image_url.url;
  if (part.type === 'image' && part.source) return `data:${part.source.media_type};base64,${part.source.data}`;
  if (part.type === 'image' && part.image) return `data:${part.mediaType};base64,${part.image}`;
  return null;
}

async function convert() {
  const format = $('format').value;
  try {
    const { content, missing, corrected } = await toMultimodal(composer.value, {
      format,
      keepAlt: $('keep-alt').checked,
      resolve: async (url) => {
        const res = await fetch(new URL(url, location.href));
        return res.ok ? new Uint8Array(await res.arrayBuffer()) : null;
      },
    });
    const list = $('parts');
    list.replaceChildren();
    for (const part of content) {
      const li = document.createElement('li');
      const tag = document.createElement('span');
      tag.className = 'tag';
      tag.textContent = part.type;
      li.append(tag);
      const src = imageSrc(part);
      if (src) {
        const img = document.createElement('img');
        img.className = 'thumb';
        img.src = src;
        img.alt = 'image part';
        li.append(img, ` ${Math.round((src.length * 3) / 4 / 1024)} KB`);
      } else {
        li.append(part.text ?? '');
      }
      list.append(li);
    }
    for (const m of missing) {
      const li = document.createElement('li');
      li.className = 'missing';
      li.textContent = `not resolved: ${m.url} — ${m.reason}`;
      list.append(li);
    }
    $('parts-json').textContent = shortJson(content);
    status(`${content.length} parts · ${missing.length} missing${corrected.length ? ` · ${corrected.length} MIME type(s) corrected` : ''}`);
  } catch (e) {
    status(e instanceof CtxpackError ? `${e.code}: ${e.message}` : String(e), true);
  }
}

$('convert').addEventListener('click', convert);
$('format').addEventListener('change', convert);
$('keep-alt').addEventListener('change', convert);
composer.addEventListener('paste', (e) => {
  const files = [...(e.clipboardData?.files ?? [])];
  if (files.length) {
    e.preventDefault();
    insertImages(files);
  }
});
const zone = $('dropzone');
zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('over'); });
zone.addEventListener('dragleave', () => zone.classList.remove('over'));
zone.addEventListener('drop', (e) => {
  e.preventDefault();
  zone.classList.remove('over');
  insertImages([...(e.dataTransfer?.files ?? [])]);
});

composer.value = '请分析这张图：![图表](sample/chart.png)\n\n`![not an image](code.png)` stays text.';
await convert();
document.body.dataset.ready = 'true';
