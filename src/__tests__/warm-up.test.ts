/**
 * The figure server draws a few tiny views of its own when it starts, so the first view a person
 * waits for does not pay for the renderer's first use (fonts, glyphs, decoders, encoders).
 */
import { clearRenderCaches, renderCacheStats } from '../server/render/render';
import { warmRenderer } from '../server/warm-up';

describe('warmRenderer', () => {
  it('draws each kind of view, over PNG and JPEG, without a request', async () => {
    clearRenderCaches();
    const ms = await warmRenderer();
    expect(typeof ms).toBe('number');
    // Map, close-up and sheet over each of the two pictures.
    expect(renderCacheStats().views.entries).toBe(6);
    expect(renderCacheStats().decoded.entries).toBeGreaterThan(0);
  });
});
