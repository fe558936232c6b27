/** The organisation's login texts and message texts (import/texts.ts). */
import { MESSAGE_TEXT_LISTS } from '../document.js';
import { compact } from './compact.js';
import { field, listField, type OrgExport } from './section.js';

const MESSAGE_LIST_BY_TYPE = Object.fromEntries(Object.entries(MESSAGE_TEXT_LISTS).map(([list, type]) => [type, list]));

export async function* loginTexts(o: OrgExport): AsyncGenerator<string> {
  const texts = await o.read.transfer.loginTextsOf(o.org.id);
  yield* listField(
    'loginTexts',
    texts.map((l) => ({ language: l.language, ...l.screens })),
  );
}

/** One list per kind of message (`initMessageTexts`, …), in the order the kinds are first met. */
export async function* messageTexts(o: OrgExport): AsyncGenerator<string> {
  const texts = await o.read.transfer.messageTextsOf(o.org.id);
  const byList = new Map<string, unknown[]>();
  for (const text of texts) {
    const list = MESSAGE_LIST_BY_TYPE[text.messageType];
    if (!list) continue;
    if (!byList.has(list)) byList.set(list, []);
    byList.get(list)!.push({ language: text.language, ...compact(text.fields) });
  }
  for (const [list, items] of byList) yield field(list, items);
}
