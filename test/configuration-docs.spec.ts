import 'reflect-metadata';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { loadAppConfig } from '../src/config';

const ROOT = resolve(__dirname, '..', '..');
const CWD = resolve('/srv/fleet-registry');

interface StatedDefault {
  variable: string;
  /** The default cell's value when the cell is only values, one a variable (`3000`, `0.0.0.0`); undefined for prose. */
  value?: string;
}

/** The rows of a document's variable tables: `| variable | default | meaning |`. */
function statedDefaults(document: string): StatedDefault[] {
  return readFileSync(join(ROOT, document), 'utf8')
    .split('\n')
    .map((line) => line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim()))
    .filter((cells) => cells.length === 3)
    .flatMap(([names, defaults]) => {
      const variables = [...names.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map(([, name]) => name);
      const values = [...defaults.matchAll(/`([^`]*)`/g)].map(([, value]) => value);
      const onlyValues = /^`[^`]*`(, `[^`]*`)*$/.test(defaults) && values.length === variables.length;
      return variables.map((variable, index) => ({ variable, value: onlyValues ? values[index] : undefined }));
    });
}

for (const document of ['README.md', 'docs/configuration.md']) {
  describe(`${document}: the defaults of the variable tables`, () => {
    const defaults = statedDefaults(document);

    it('states a default as a value its variable takes, and setting it changes nothing', () => {
      const unset = loadAppConfig({}, CWD);
      for (const { variable, value } of defaults.filter((row) => row.value !== undefined)) {
        assert.deepEqual(loadAppConfig({ [variable]: value }, CWD), unset, `${variable}=${value}`);
      }
    });

    it("states DATABASE_URL's default as a value DATABASE_URL takes", () => {
      assert.equal(defaults.find(({ variable }) => variable === 'DATABASE_URL')?.value, 'sqlite:data/registry.sqlite');
    });

    it('reads a table of at least PORT, HOST and DATABASE_URL', () => {
      assert.deepEqual(defaults.map(({ variable }) => variable).filter((variable) => ['PORT', 'HOST', 'DATABASE_URL'].includes(variable)), ['PORT', 'HOST', 'DATABASE_URL']);
    });
  });
}
