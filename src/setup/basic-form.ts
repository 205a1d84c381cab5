// Which form of HTTP Basic client credentials the token endpoint takes. RFC 6749 § 2.3.1 says the
// client id and secret are form-urlencoded before they are joined and base64-encoded; clients and
// servers have long got it wrong either way (AppAuth, simple-oauth2, IdentityServer4, Spring's
// OAuth). The suite sends the RFC's form. Where the two forms differ (a secret holding a space,
// '+', '%', ':', '&', '/', non-ASCII) and the server refuses the RFC's but takes the raw one, the run
// goes on with the raw one, so that no check of the spec fails for it: TOKEN-CLIENT-ENCODED (profile,
// citing § 2.3.1) is where that is judged. Learnt once, before the tokens: a grant never issued sent
// in each form; a refusal of the client (401) in the RFC's form but not in the raw one says which.
import type { ApiClient } from '../transport/api';
import { basicAuth, basicFormsDiffer, restrictedAppTarget, setRawBasicClients, tokenRequest } from './oauth';
import type { Target } from './target';

/** A grant that was never issued: the answer to it says only whether the client was taken. */
const NEVER_ISSUED = { grant_type: 'authorization_code', code: 'vds-conformance-basic-form-probe' };

/** The client ids whose token endpoint takes their credentials only raw; the oauth module is told. */
export async function learnBasicForms(target: Target, api: ApiClient): Promise<string[]> {
  const apps = [target, restrictedAppTarget(target)].filter(
    (t, i, all) =>
      t.oauth?.clientId &&
      t.oauth.clientSecret &&
      basicFormsDiffer(t.oauth.clientId, t.oauth.clientSecret) &&
      all.findIndex((o) => o.oauth?.clientId === t.oauth?.clientId) === i,
  );
  const raw = (
    await Promise.all(
      apps.map(async (app) => {
        const status = async (form: 'rfc' | 'raw') =>
          (await tokenRequest(api, app, NEVER_ISSUED, basicAuth(app, undefined, form)).catch(() => undefined))?.status;
        const [rfc, asIs] = await Promise.all([status('rfc'), status('raw')]);
        return rfc === 401 && asIs !== undefined && asIs !== 401 ? [app.oauth!.clientId!] : [];
      }),
    )
  ).flat();
  setRawBasicClients(raw);
  return raw;
}
