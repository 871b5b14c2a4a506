/**
 * Which keys of a configuration name a secret, for every file that refuses them (the app's
 * config file, its state backend section, the securityPolicy section): one rule, so a key one
 * reader refuses is refused by all. The key is compared case-blind with every character other
 * than a letter or a digit dropped, so `apiKey`, `API_KEY`, `api-key` and `Api.Key` are one name.
 *
 * The words are the union of what the three readers refused before they shared this rule: api
 * keys, AWS access keys, SSE customer keys, secrets, passwords (also `passwd`), tokens and
 * credentials.
 */

/** The secret words, found anywhere in the normalised key. */
const SECRET_WORDS = /apikey|accesskey|customerkey|secret|passw(or)?d|token|credential/;

/** The key as the rule compares it: lower case, letters and digits only. */
export function normalisedKeyName(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** True when `key` names a secret in any spelling (ApiKey, api_key, DbPassword, sseCustomerKey). */
export function isSecretName(key: string): boolean {
  return SECRET_WORDS.test(normalisedKeyName(key));
}
