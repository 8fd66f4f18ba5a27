// The user's token: taken once from ?token= (then removed from the address bar) or pasted, and kept
// in sessionStorage, so it lasts for this tab only and never sits in a URL, a bookmark or history.

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

/** What the token says about its holder (for display and for hiding buttons; the hub decides). */
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
