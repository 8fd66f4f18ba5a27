// A person's browser at the test OpenID Provider (idp.mjs): follows an authorization URL through its login and
// consent pages (devInteractions: any password) with a cookie jar, and answers the code sent to the redirect URI.
export async function signIn(authorizationUrl, login, redirectUri) {
  return new URL(await signInRedirect(authorizationUrl, login, redirectUri)).searchParams.get('code');
}

// The same, answering the whole address the issuer sends the browser back to (code and state), without opening it.
export async function signInRedirect(authorizationUrl, login, redirectUri) {
  const cookies = new Map();
  const go = async (url, init = {}) => {
    const headers = { ...(init.headers ?? {}), cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return res;
  };
  const follow = async (res, from) => {
    let url = from;
    while (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location'), url).href;
      if (url.startsWith(redirectUri)) {
        const answer = new URL(url).searchParams;
        if (!answer.get('code')) throw new Error(`no code at the redirect: ${url}`);
        return { code: answer.get('code'), url };
      }
      res = await go(url);
    }
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
    return { url };
  };
  const form = (body) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body).toString() });
  let step = await follow(await go(authorizationUrl), authorizationUrl);
  if (!step.code) step = await follow(await go(step.url, form({ prompt: 'login', login, password: 'any' })), step.url);
  if (!step.code) step = await follow(await go(step.url, form({ prompt: 'consent' })), step.url);
  if (!step.code) throw new Error(`no code after login and consent (at ${step.url})`);
  return step.url;
}
