// The user's token: taken once from ?token= (then removed from the address bar), pasted, or handed over by the
// hub after a sign-in at the issuer, and kept in sessionStorage, so it lasts for this tab only and never sits in a
// URL, a bookmark or history.

const KEY = 'fleetbus.token';

export function takeToken() {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    sessionStorage.setItem(KEY, fromUrl.trim());
    url.searchParams.delete('token');
    history.replaceState(null, '', url.pathname + url.search + url.hash);
  }
  return sessionStorage.getItem(KEY);
}

export function saveToken(token) {
  sessionStorage.setItem(KEY, token.trim());
}

export function forgetToken() {
  sessionStorage.removeItem(KEY);
}

/**
 * What the token says about its holder (for display and for hiding buttons; the hub decides). An issuer's token
 * carries groups, not roles: the page asks the hub (/api/v1/whoami) and uses this only with a hub that cannot say.
 */
export function claims(token) {
  try {
    const part = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const json = JSON.parse(atob(part + '='.repeat((4 - part.length % 4) % 4)));
    const roles = Array.isArray(json.roles) ? json.roles : [];
    return { subject: json.sub || 'unknown', roles, expiresAt: json.exp ? json.exp * 1000 : null };
  } catch (e) {
    return { subject: 'unknown', roles: [], expiresAt: null };
  }
}

export function mayApprove(who) {
  return who.roles.includes('approver') || who.roles.includes('admin');
}
