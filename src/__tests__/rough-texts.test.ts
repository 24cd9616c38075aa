/**
 * @jest-environment jsdom
 *
 * Small untruths a new user read (issue 32): a relative image named as if it came from the
 * Jupyter server's own host, and the tour notebook naming a shortcut the extension does not have.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { blockRemoteResources, type PrivacyOptions } from '../widget/privacy';

const options: PrivacyOptions = {
  allowRemoteImages: false,
  label: (kind, host) => `${kind} from ${host}`,
  relativeLabel: (kind, address) => `relative ${kind} ${address}`,
  title: url => url
};

function filtered(html: string): DocumentFragment {
  const template = document.createElement('template');
  template.innerHTML = html;
  blockRemoteResources(template.content, options);
  return template.content;
}

describe('a relative image in chat Markdown', () => {
  it('is said to be a relative image, not one from the Jupyter server, and offers no load', () => {
    const content = filtered('<p><img src="x"> and <img src="plots/fig.png"></p>');
    const notes = Array.from(content.querySelectorAll('.jp-FigureChat-blocked'));
    expect(notes.map(note => note.textContent)).toEqual([
      'relative image x',
      'relative image plots/fig.png'
    ]);
    expect(notes.every(note => note.tagName === 'SPAN')).toBe(true);
    expect(content.textContent).not.toContain(window.location.host || 'localhost');
  });

  it('still names the host of an absolute or protocol-relative address, loadable on click', () => {
    const content = filtered(
      '<img src="https://example.org/a.png"><img src="//cdn.example/b.png">'
    );
    const buttons = Array.from(content.querySelectorAll('button.jp-FigureChat-blocked'));
    expect(buttons.map(button => button.textContent)).toEqual([
      'image from example.org',
      'image from cdn.example'
    ]);
  });
});

describe('the tour notebook', () => {
  const root = join(__dirname, '..', '..');
  it('names the shortcut the settings schema defines', () => {
    const schema = JSON.parse(readFileSync(join(root, 'schema', 'plugin.json'), 'utf8')) as {
      'jupyter.lab.shortcuts': Array<{ command: string; keys: string[] }>;
    };
    const keys = schema['jupyter.lab.shortcuts'].find(s => s.command === 'figure-chat:open')!
      .keys[0];
    const spelled = keys.split(' ').map(part => (part === 'Accel' ? 'Ctrl' : part));
    const tour = readFileSync(join(root, 'examples', 'figure-chat-tour.ipynb'), 'utf8');
    expect(tour).toContain(`\`${spelled.join('+')}\``);
    // No other Ctrl+… shortcut is named for the sidebar.
    const named = tour.match(/Ctrl\+Shift\+[A-Z]/g) ?? [];
    expect(new Set(named)).toEqual(new Set([spelled.join('+')]));
  });
});
