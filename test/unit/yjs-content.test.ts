// @testScope once: Yjs documents in memory; no database or HTTP.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EditorContent } from '../../src/crdt/yjs-content.js';

describe('EditorContent', () => {
  it("a stored editor loads under its own client id, without Yjs taking its operations for another client's", () => {
    const printed: unknown[] = [];
    const [log, warn] = [console.log, console.warn];
    console.log = console.warn = (...args: unknown[]) => void printed.push(args.join(' '));
    try {
      const written = EditorContent.load('text', 'content', 123, EditorContent.create('text', 'content', 123, 'hello').state());
      written.replaceWith('hello world');
      const loaded = EditorContent.load('text', 'content', 123, written.state());
      assert.equal(written.doc.clientID, 123);
      assert.equal(loaded.doc.clientID, 123);
      assert.equal(loaded.view(), 'hello world');
    } finally {
      [console.log, console.warn] = [log, warn];
    }
    assert.deepEqual(printed, []);
  });
});
