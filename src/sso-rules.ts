/**
 * The identity provider's SAML metadata URL, as every part that takes one checks it (the client
 * before it sends, the provider at validate, SecurityPolicy at synth, the emulator): one rule.
 * The raw text is checked before it is parsed, because the URL parser quietly drops tabs and
 * newlines (`https://idp/meta\ndata` parses as `https://idp/metadata`) and what the service
 * stores is the raw text.
 */
import { redactUrlCredentials } from './url-credentials';

/** What is wrong with a metadata URL (a phrase such as "is not a URL"), or undefined; it never repeats credentials. */
export function metadataUrlProblem(url: string): string | undefined {
  if (url === '') return 'is empty';
  const unprintable = /[\u0000-\u0020\u007f-\u009f]/.exec(url);
  if (unprintable !== null) {
    const code = unprintable[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `holds white space or a control character (U+${code} at position ${unprintable.index + 1}); a URL is one word of printable text`;
  }
  if (!URL.canParse(url)) return 'is not a URL';
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:') return `is not an https:// URL (it uses ${parsed.protocol.replace(/:$/, '')})`;
  if (parsed.hostname === '') return 'has no host name';
  if (parsed.username !== '' || parsed.password !== '' || /^https:\/\/[^/?#]*@/i.test(url)) {
    return 'holds a user name or password before the host, which would be stored in clear in terraform state and the audit log; give the metadata URL without credentials';
  }
  return undefined;
}

/** The URL as a message may show it: JSON-quoted, credentials replaced. */
export function describeMetadataUrl(url: string): string {
  return JSON.stringify(redactUrlCredentials(url));
}
