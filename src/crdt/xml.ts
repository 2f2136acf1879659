/**
 * The XML that `xml` editors hold: elements with attributes, and text. Text is kept exactly as
 * written (entities are not decoded), because Yjs writes an XML fragment's string form without
 * escaping; that way what a caller stores is what it reads back. Comments, processing
 * instructions and CDATA are not part of a Yjs XML fragment and are refused.
 */
export type XmlNode = string | { name: string; attributes: [string, string][]; children: XmlNode[] };

const NAME = /^[A-Za-z_][\w.:-]*/;

export function parseXml(source: string): XmlNode[] {
  let position = 0;
  const fail = (message: string): never => {
    throw new Error(`${message} at offset ${position}`);
  };

  const nodes = (closing?: string): XmlNode[] => {
    const list: XmlNode[] = [];
    while (position < source.length) {
      const next = source.indexOf('<', position);
      if (next !== position) {
        const end = next === -1 ? source.length : next;
        list.push(source.slice(position, end));
        position = end;
        continue;
      }
      if (source.startsWith('</', position)) {
        position += 2;
        const name = NAME.exec(source.slice(position))?.[0] ?? fail('expected a closing tag name');
        if (name !== closing) fail(`unexpected </${name}>`);
        position += name.length;
        skipSpace();
        if (source[position] !== '>') fail('expected ">"');
        position++;
        return list;
      }
      list.push(element());
    }
    if (closing !== undefined) fail(`<${closing}> is not closed`);
    return list;
  };

  const skipSpace = () => {
    while (/\s/.test(source[position] ?? '')) position++;
  };

  const element = (): XmlNode => {
    position++; // '<'
    const name = NAME.exec(source.slice(position))?.[0] ?? fail('expected an element name');
    position += name.length;
    const attributes: [string, string][] = [];
    for (;;) {
      skipSpace();
      if (source.startsWith('/>', position)) {
        position += 2;
        return { name, attributes, children: [] };
      }
      if (source[position] === '>') {
        position++;
        return { name, attributes, children: nodes(name) };
      }
      const key = NAME.exec(source.slice(position))?.[0] ?? fail('expected an attribute name');
      position += key.length;
      skipSpace();
      if (source[position] !== '=') fail('expected "="');
      position++;
      skipSpace();
      const quote = source[position];
      if (quote !== '"' && quote !== "'") fail('expected a quoted attribute value');
      const end = source.indexOf(quote!, position + 1);
      if (end === -1) fail('attribute value is not closed');
      attributes.push([key, source.slice(position + 1, end)]);
      position = end + 1;
    }
  };

  return nodes();
}

/** The string form Yjs gives the node: attributes sorted by name, every element closed. */
export function xmlString(node: XmlNode): string {
  if (typeof node === 'string') return node;
  const attributes = [...node.attributes]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => ` ${key}="${value}"`)
    .join('');
  return `<${node.name}${attributes}>${node.children.map(xmlString).join('')}</${node.name}>`;
}
