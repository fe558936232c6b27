/**
 * The label policy (ZITADEL's private labelling, without assets): colours for light and dark mode,
 * `hideLoginNameSuffix`, `disableWatermark`, `themeMode`. The login pages take their colours from the
 * effective policy of the application's organisation. Changes apply at once (ZITADEL previews them
 * until ActivateLabelPolicy; this service has no preview). Colours are CSS hex colours (`#rgb`,
 * `#rrggbb`, `#rrggbbaa`) or empty: they go into the pages' style sheet. Until the instance's default
 * is changed it is ZITADEL's built-in one.
 */
import { invalidArgument } from '../errors.js';
import { LabelPolicy as LabelDocument } from '../transfer/document.js';
import { parseWith, policyOperations } from './policy.js';

const COLOURS = ['primaryColor', 'warnColor', 'backgroundColor', 'fontColor', 'primaryColorDark', 'backgroundColorDark', 'warnColorDark', 'fontColorDark'] as const;
type Colour = (typeof COLOURS)[number];

export type Label = Record<Colour, string> & { hideLoginNameSuffix: boolean; disableWatermark: boolean; themeMode: string };

const BUILT_IN: Label = {
  primaryColor: '#5469d4',
  warnColor: '#cd3d56',
  backgroundColor: '#fafafa',
  fontColor: '#000000',
  primaryColorDark: '#2073c4',
  backgroundColorDark: '#111827',
  warnColorDark: '#ff3b5b',
  fontColorDark: '#ffffff',
  hideLoginNameSuffix: false,
  disableWatermark: false,
  themeMode: 'THEME_MODE_AUTO',
};

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

export const label = policyOperations({
  kind: 'label',
  eventName: 'label',
  label: 'label policy',
  builtIn: BUILT_IN,
  parse: (input: unknown): Label => {
    const p = parseWith(LabelDocument, input) as Partial<Label>;
    const colours = Object.fromEntries(
      COLOURS.map((c) => {
        const value = (p[c] ?? '').trim();
        if (value && !HEX.test(value)) throw invalidArgument('POLICY-c0l0r', `invalid ${c}: value must be a hex colour such as #5469d4`);
        return [c, value];
      }),
    ) as Record<Colour, string>;
    const themeMode = p.themeMode && p.themeMode !== 'THEME_MODE_UNSPECIFIED' ? p.themeMode : 'THEME_MODE_AUTO';
    return { ...colours, hideLoginNameSuffix: Boolean(p.hideLoginNameSuffix), disableWatermark: Boolean(p.disableWatermark), themeMode };
  },
  show: (p: Label) => ({ ...p }),
  documentField: 'labelPolicy',
  importType: 'label_policy',
  // ZITADEL's export leaves the theme mode out; here it travels unless it is the default (AUTO), so a
  // ZITADEL document (which has none) comes back as it was, and a chosen mode is not lost. Never assets.
  toDocument: ({ themeMode, ...rest }: Label) => ({ ...rest, ...(themeMode !== 'THEME_MODE_AUTO' ? { themeMode } : {}) }),
});
