import diff from 'fast-diff';
import * as Y from 'yjs';
import { parseXml, xmlString, type XmlNode } from './xml.js';
import { BadUpdateError, type CrdtData, type CrdtType } from './crdt-data.js';

/*
 * The Yjs side of stored editors, imported by its users when they first need it (`CrdtService`,
 * `live/live-engine.ts`): Yjs is about 1.3 MB of heap an instance without editors never uses.
 */

/**
 * One editor's Yjs document, loaded from its stored state. The service writes with the
 * editor's own client id: writes to one editor are serialised, so it never runs concurrently
 * with itself, and consecutive edits merge into few items instead of one client per write.
 */
export class EditorContent {
  readonly doc: Y.Doc;

  private constructor(
    readonly type: CrdtType,
    readonly contentKey: string,
    clientId: number,
    state?: Uint8Array,
  ) {
    // A fixed guid: Yjs's default is a random UUID drawn byte by byte (about 90 µs a document,
    // on every write), and a guid only tells subdocuments apart, which editors do not have.
    this.doc = new Y.Doc({ gc: true, guid: 'editor' });
    // The stored state is applied first and the editor's client id taken after: Yjs takes
    // operations of its own id arriving from outside for another client's, warns, and picks a
    // new id (every load of an editor written before printed that warning).
    if (state) Y.applyUpdate(this.doc, state);
    this.doc.clientID = clientId;
  }

  static create(type: CrdtType, contentKey: string, clientId: number, data: CrdtData): EditorContent {
    const content = new EditorContent(type, contentKey, clientId);
    content.replaceWith(data);
    return content;
  }

  static load(type: CrdtType, contentKey: string, clientId: number, state: Uint8Array): EditorContent {
    return new EditorContent(type, contentKey, clientId, state);
  }

  /**
   * Changes the content to `data` with the fewest operations it can find: a character diff for
   * text, changed keys for a map, the changed middle for an array or the top-level XML nodes.
   */
  replaceWith(data: CrdtData): void {
    this.doc.transact(() => {
      switch (this.type) {
        case 'text':
          return applyTextDiff(this.doc.getText(this.contentKey), data as string);
        case 'map':
          return applyMapChanges(this.doc.getMap(this.contentKey), data as Record<string, unknown>);
        case 'array':
          return applyArrayChanges(this.doc.getArray(this.contentKey), data as unknown[]);
        case 'xml':
          return applyXmlChanges(this.doc.getXmlFragment(this.contentKey), parseXml(data as string));
      }
    });
  }

  /** Applies a client's binary update; throws `BadUpdateError` when it cannot be read. */
  applyUpdate(update: Uint8Array): void {
    try {
      // Decoding first refuses malformed bytes before anything touches the document.
      Y.decodeUpdate(update);
      Y.applyUpdate(this.doc, update);
    } catch (error) {
      throw new BadUpdateError((error as Error).message);
    }
  }

  /** The JSON view of the shared type (XML as its string form). */
  view(): CrdtData {
    switch (this.type) {
      case 'text':
        return this.doc.getText(this.contentKey).toString();
      case 'map':
        return this.doc.getMap(this.contentKey).toJSON();
      case 'array':
        return this.doc.getArray(this.contentKey).toJSON();
      case 'xml':
        return this.doc.getXmlFragment(this.contentKey).toString();
    }
  }

  state(): Uint8Array {
    return Y.encodeStateAsUpdate(this.doc);
  }
}

/** What of a stored state a peer with the given state vector lacks, as a Yjs update; throws on a vector Yjs cannot read. */
export function missingFrom(state: Uint8Array, stateVector: Uint8Array): Uint8Array {
  return Y.diffUpdate(state, stateVector);
}

/** A stored state's state vector. */
export function stateVectorOf(state: Uint8Array): Uint8Array {
  return Y.encodeStateVectorFromUpdate(state);
}

function applyTextDiff(text: Y.Text, next: string): void {
  let index = 0;
  for (const [operation, part] of diff(text.toString(), next)) {
    if (operation === diff.EQUAL) index += part.length;
    else if (operation === diff.DELETE) text.delete(index, part.length);
    else {
      text.insert(index, part);
      index += part.length;
    }
  }
}

function applyMapChanges(map: Y.Map<unknown>, next: Record<string, unknown>): void {
  for (const key of [...map.keys()]) if (!Object.hasOwn(next, key)) map.delete(key);
  const current = map.toJSON();
  for (const [key, value] of Object.entries(next)) {
    if (!Object.hasOwn(current, key) || JSON.stringify(current[key]) !== JSON.stringify(value)) map.set(key, value);
  }
}

/** Keeps the common start and end (compared as JSON), replaces what lies between. */
function changedMiddle(current: string[], next: string[]): { start: number; removed: number; inserted: number } {
  let start = 0;
  while (start < current.length && start < next.length && current[start] === next[start]) start++;
  let end = 0;
  while (end < current.length - start && end < next.length - start && current[current.length - 1 - end] === next[next.length - 1 - end]) end++;
  return { start, removed: current.length - start - end, inserted: next.length - start - end };
}

function applyArrayChanges(array: Y.Array<unknown>, next: unknown[]): void {
  const { start, removed, inserted } = changedMiddle(
    array.toJSON().map((item) => JSON.stringify(item)),
    next.map((item) => JSON.stringify(item)),
  );
  if (removed) array.delete(start, removed);
  if (inserted) array.insert(start, next.slice(start, start + inserted));
}

function applyXmlChanges(fragment: Y.XmlFragment, next: XmlNode[]): void {
  const { start, removed, inserted } = changedMiddle(
    fragment.toArray().map((node) => node.toString()),
    next.map(xmlString),
  );
  if (removed) fragment.delete(start, removed);
  if (inserted) fragment.insert(start, next.slice(start, start + inserted).map(toYjs));
}

function toYjs(node: XmlNode): Y.XmlElement | Y.XmlText {
  if (typeof node === 'string') return new Y.XmlText(node);
  const element = new Y.XmlElement(node.name);
  for (const [key, value] of node.attributes) element.setAttribute(key, value);
  element.insert(0, node.children.map(toYjs));
  return element;
}
