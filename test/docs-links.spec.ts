import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = resolve(__dirname, '..', '..');
const DOCUMENTS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => join('docs', name))];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');
}

function anchorsIn(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => anchorOf(heading)));
}

/** The relative links of a Markdown file, outside code blocks and code spans. */
function linksIn(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/^```[\s\S]*?^```/gm, '')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map(([, target]) => target).filter((target) => !/^[a-z]+:/i.test(target));
}

describe('the documents', () => {
  for (const document of DOCUMENTS) {
    it(`${document}: every relative link names a file of the repository, and a heading of it when it names one`, () => {
      const from = join(ROOT, document);
      for (const link of linksIn(from)) {
        const [path, anchor] = link.split('#');
        const target = path === '' ? from : resolve(dirname(from), path);
        assert.ok(relative(ROOT, target).split('/')[0] !== '..', `${document}: ${link} leaves the repository`);
        assert.ok(existsSync(target), `${document}: ${link} names no file`);
        if (anchor !== undefined && statSync(target).isFile()) {
          assert.ok(anchorsIn(target).has(anchor), `${document}: ${link} names no heading of ${relative(ROOT, target)}`);
        }
      }
    });
  }

  it('checks the links of the README and every page in docs/', () => {
    assert.ok(DOCUMENTS.includes('README.md') && DOCUMENTS.length > 5, DOCUMENTS.join(', '));
  });
});
