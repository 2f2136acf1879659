import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';
import Handlebars from 'handlebars';
import { AppConfig } from '../config/app-config.js';

/** A mail as its templates render it. */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** The templates of a kind of mail: `<kind>.subject.hbs`, `<kind>.text.hbs`, `<kind>.html.hbs`. */
const PARTS = ['subject', 'text', 'html'] as const;
type Part = (typeof PARTS)[number];

/**
 * Mail templates an operator can read and change: Handlebars files in `MAIL_TEMPLATES_DIR`
 * (the bundled `templates/mail` by default), read and compiled once at start-up, so a broken
 * template stops the service at once rather than a mail later. `partials/*.hbs` are shared by
 * all of them (`{{> headline}}`); helpers: `eq` and `line` (folds its block onto one line). The
 * HTML part escapes every value, in its partials too; the subject and the plain-text part do not
 * (they are not HTML), and the subject is folded onto one line.
 */
@Injectable()
export class MailTemplates {
  private readonly templates = new Map<string, Record<Part, Handlebars.TemplateDelegate>>();

  constructor(config: AppConfig) {
    const dir = config.mailTemplatesDir;
    let files: string[];
    try {
      files = readdirSync(dir);
    } catch (error) {
      throw new Error(`MAIL_TEMPLATES_DIR: cannot read ${dir} (${(error as Error).message})`);
    }
    const partials = join(dir, 'partials');
    const partialSources = new Map(
      safeList(partials)
        .filter((name) => name.endsWith('.hbs'))
        .map((file) => [file.slice(0, -'.hbs'.length), readFileSync(join(partials, file), 'utf8')] as const),
    );
    // One environment per escaping: Handlebars compiles a partial given as text once, with the
    // options of the first template that uses it, and keeps it; shared between the subject (no
    // escaping) and the HTML part, the partial then escaped nothing in the HTML either.
    const environments = { escaping: environment(partialSources, false), plain: environment(partialSources, true) };
    const kinds = new Set(files.filter((name) => name.endsWith('.subject.hbs')).map((name) => name.slice(0, -'.subject.hbs'.length)));
    for (const kind of kinds) {
      const compiled = {} as Record<Part, Handlebars.TemplateDelegate>;
      for (const part of PARTS) {
        const file = join(dir, `${kind}.${part}.hbs`);
        let source: string;
        try {
          source = readFileSync(file, 'utf8');
        } catch {
          throw new Error(`MAIL_TEMPLATES_DIR: ${file} is missing (each kind of mail has a subject, text and html template)`);
        }
        const noEscape = part !== 'html';
        const template = (noEscape ? environments.plain : environments.escaping).compile(source, { noEscape, strict: false });
        // Compiling is lazy: render once now, so a syntax error shows at start-up with its file.
        try {
          template({});
        } catch (error) {
          throw new Error(`MAIL_TEMPLATES_DIR: ${file}: ${(error as Error).message}`);
        }
        compiled[part] = template;
      }
      this.templates.set(kind, compiled);
    }
  }

  /** Whether templates of this kind exist. */
  has(kind: string): boolean {
    return this.templates.has(kind);
  }

  /** Renders a kind of mail from its model. */
  render(kind: string, model: object): RenderedMail {
    const templates = this.templates.get(kind);
    if (!templates) throw new Error(`No mail templates of kind ${kind}`);
    return {
      subject: templates.subject(model).replace(/\s+/g, ' ').trim(),
      text:
        templates
          .text(model)
          .replace(/\n{3,}/g, '\n\n')
          .trim() + '\n',
      html: templates.html(model),
    };
  }
}

/** A Handlebars environment with the helpers, and the partials compiled with this escaping. */
function environment(partials: Map<string, string>, noEscape: boolean): typeof Handlebars {
  const handlebars = Handlebars.create();
  handlebars.registerHelper('eq', (a: unknown, b: unknown) => a === b);
  // `{{#line}}...{{/line}}`: the block's text folded onto one line (a partial written over several).
  handlebars.registerHelper('line', function (this: unknown, options: Handlebars.HelperOptions) {
    return options.fn(this).replace(/\s+/g, ' ').trim();
  });
  for (const [name, source] of partials) handlebars.registerPartial(name, handlebars.compile(source, { noEscape, strict: false }));
  return handlebars;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
