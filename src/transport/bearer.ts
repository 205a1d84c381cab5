// An Authorization header read as a bearer credential: the scheme's name in any case (RFC 9110 § 11.1,
// RFC 6750 § 2.1; AUTH-BEARER-CASE writes it otherwise on purpose) and the token after one space, kept
// as written. One reading for every place that asks which token a header carries (the check's record
// of its credential, the token keeper, the curl line).

/** The scheme as written and the token, or undefined when the header is not `Bearer <token>`. */
export function bearerOf(authorization: string | null | undefined): { scheme: string; token: string } | undefined {
  const match = authorization ? /^(Bearer) (\S+)$/i.exec(authorization) : null;
  return match ? { scheme: match[1], token: match[2] } : undefined;
}
