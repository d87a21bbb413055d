// The converter's first choice, "What is the picture?", and the home page's samples, as a
// browser without JavaScript uses them: each choice is a labelled radio button with a hint, it
// reaches the conversion as parameters that exist, a field changed under Advanced wins over it,
// and a sample converts from the form with no file chosen.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PICTURES, SAMPLES } from '../../../src/http/web/routes/try.ts';
import { corpusFile } from '../../helpers/http.ts';
import { PageClient, csrfOf, errorOf } from '../../helpers/pages.ts';
import { liftFreeLimits, startTestService, type TestService } from '../../helpers/service.ts';
import { createSqliteDatabase } from '../../helpers/stores.ts';

const LOGO = corpusFile('logo/flat_shapes_transparency_300.png');

describe('/try: what is the picture, and the samples', () => {
  let service: TestService;
  let client: PageClient;
  before(async () => {
    service = await startTestService(createSqliteDatabase());
    await liftFreeLimits(service);
    client = service.pages();
    await client.signUp('painter@example.com', 'long enough password');
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  async function convert(fields: Record<string, string>, withImage = true): Promise<{ status: number; html: string; svg: string }> {
    const form = new FormData();
    form.append('_csrf', csrfOf((await client.get('/try')).html));
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    if (withImage) form.append('image', new Blob([new Uint8Array(LOGO)], { type: 'image/png' }), 'shapes.png');
    else form.append('image', new Blob([]), '');
    const res = await client.postMultipart('/try', form);
    const dataUrl = /id="preview-svg"[^>]*src="data:image\/svg\+xml;base64,([^"]+)"/.exec(res.text)?.[1];
    return { status: res.status, html: res.text, svg: dataUrl ? Buffer.from(dataUrl, 'base64').toString('utf8') : '' };
  }

  it('asks "What is the picture?" first, each choice with its hint, and keeps the parameters under Advanced', async () => {
    const { html } = await client.get('/try');
    assert.match(html, /<legend>What is the picture\?<\/legend>/);
    for (const [name, picture] of Object.entries(PICTURES)) {
      assert.match(html, new RegExp(`<input type="radio" id="picture-${name}" name="picture" value="${name}" aria-describedby="picture-${name}-hint">`), name);
      assert.ok(html.includes(`<label for="picture-${name}">${picture.label}</label>`), name);
      assert.ok(html.includes(`<p class="hint" id="picture-${name}-hint">${picture.hint}</p>`), name);
    }
    assert.match(html, /id="picture-auto" name="picture" value=""[^>]*checked/);
    assert.match(html, /<summary>Advanced: the tracing parameters<\/summary>/);
    assert.ok(html.indexOf('What is the picture?') < html.indexOf('id="colorPrecision"'), 'the picture comes before the parameters');
    assert.match(html, /how sharp a turn must be to stay a corner rather than a curve/);
  });

  it('maps each picture to parameters: pixel art is traced pixel-exact, a print choice sets its preset, and Advanced wins', async () => {
    const plain = await convert({});
    assert.equal(plain.status, 200, errorOf(plain.html));
    assert.match(plain.svg, /\sd="[^"]*[Cc]/, 'curves at the defaults');
    const pixel = await convert({ picture: 'pixel' });
    assert.equal(pixel.status, 200, errorOf(pixel.html));
    assert.doesNotMatch(pixel.svg.replace(/<svg[^>]*>/, ''), /\sd="[^"]*[CcQqSsTtAa]/, 'pixel art: straight outlines only');
    assert.match(pixel.html, /id="picture-pixel"[^>]*checked/, 'the choice is kept');
    const vinyl = await convert({ picture: 'vinyl' });
    assert.match(vinyl.svg, /^<svg [^>]*width="79.375mm"/, 'vinyl: sizes in mm');
    const overridden = await convert({ picture: 'vinyl', unit: 'in' });
    assert.match(overridden.svg, /^<svg [^>]*width="3.125in"/, 'a field changed under Advanced wins');
    const unknown = await convert({ picture: 'watercolour' });
    assert.equal(unknown.status, 200, 'an unknown choice is no choice');
  });

  it('converts a sample without a file, and sends a visitor to log in and back to it', async () => {
    const page = await client.get('/try?sample=shapes');
    assert.match(page.html, /<input type="hidden" name="sample" value="shapes" data-url="\/static\/samples\/shapes.png">/);
    assert.match(page.html, /id="picture-logo"[^>]*checked/, 'the sample chooses its kind');
    assert.doesNotMatch(page.html, /id="image"[^>]*required/);
    const res = await convert({ sample: 'shapes', picture: 'logo' }, false);
    assert.equal(res.status, 200, errorOf(res.html));
    assert.match(res.svg, /viewBox="0 0 300 300"/);
    const bad = await convert({ sample: '../../../etc/passwd' }, false);
    assert.equal(bad.status, 400);
    assert.match(errorOf(bad.html) ?? '', /choose an image file|file is empty/);

    const visitor = new PageClient(service.url);
    const redirect = await visitor.get('/try?sample=shapes');
    assert.equal(redirect.status, 303);
    assert.equal(redirect.headers.get('location'), '/login?next=%2Ftry%3Fsample%3Dshapes');
    const login = await visitor.get('/login?next=%2Ftry%3Fsample%3Dshapes');
    assert.match(login.html, /name="next" value="\/try\?sample=shapes"/);
  });

  it('serves the samples and their SVGs, each small, and the home page shows them with a button each', async () => {
    const home = await client.get('/');
    for (const [name, sample] of Object.entries(SAMPLES)) {
      const picture = await fetch(`${service.url}/static/samples/${sample.file}`);
      assert.equal(picture.status, 200, sample.file);
      assert.ok((await picture.arrayBuffer()).byteLength < 60 * 1024, `${sample.file} under 60 KB`);
      const svg = await fetch(`${service.url}/static/samples/${sample.file.replace(/\.\w+$/, '.svg')}`);
      assert.equal(svg.status, 200);
      assert.match(await svg.text(), /<svg\b/);
      assert.match(home.html, new RegExp(`<input type="hidden" name="sample" value="${name}">\\s*<button type="submit">Convert the ${sample.label.toLowerCase()}</button>`));
    }
    // The calls to action are links.
    for (const [href, text] of [['/try', 'Try the converter'], ['/docs', 'API reference']]) {
      assert.match(home.html, new RegExp(`<a[^>]* href="${href}">${text}</a>`), text);
    }
    const visitorHome = await new PageClient(service.url).get('/');
    assert.match(visitorHome.html, /<a class="primary" href="\/signup">Sign up<\/a>/);
  });
});
