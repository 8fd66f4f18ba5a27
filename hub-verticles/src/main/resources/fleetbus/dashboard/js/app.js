// Boots the dashboard: sign in, then the views fed by one live data source. Routes: #overview (the default), #nodes,
// #node/<id>, #approvals, #console, #audit, #call/<id>, #revocations (admins).
import { takeToken, saveToken, forgetToken, claims } from './auth.js';
import { createApi } from './api.js';
import { connectLive } from './datasource.js';
import { MetricsHistory } from './metrics-history.js';
import { h } from './dom.js';
import { nodesView } from './views/nodes.js';
import { approvalsView } from './views/approvals.js';
import { consoleView } from './views/console.js';
import { auditView } from './views/audit.js';
import { nodeView } from './views/node.js';
import { callView } from './views/call.js';
import { overviewView } from './views/overview.js';
import { revocationsView } from './views/revocations.js';
import { collectSignIn, showIssuers } from './login.js';

const $ = (id) => document.getElementById(id);

async function start() {
  let token = takeToken();
  if (!token) {
    // back from the issuer? the hub hands over the token it checked, or says why it refused
    const signIn = await collectSignIn();
    if (!signIn || signIn.error) {
      showSignIn(signIn ? signIn.error : '');
      return;
    }
    saveToken(signIn.token);
    token = signIn.token;
  }
  const api = createApi(token);
  let catalog;
  try {
    catalog = (await api.get('/api/v1/tools')).body.tools || [];
  } catch (e) {
    if (e.status === 401) {
      forgetToken();
      showSignIn(`The hub did not accept that token: ${e.message}`);
    } else {
      showSignIn(`Cannot reach the hub: ${e.message}`);
    }
    return;
  }
  const who = await whoami(api, token);
  $('whoami').textContent = `${who.subject} · ${who.roles.join(', ') || 'no roles'}`;
  $('sign-out').hidden = false;
  $('nav').hidden = false;

  if (who.roles.includes('admin')) watchCluster(api);

  const pollingOnly = new URLSearchParams(window.location.search).get('live') === 'polling';
  const live = await connectLive(api, (mode) => { $('live-mode').textContent = mode; }, pollingOnly);
  live.onProblem((problem) => { $('live-error').textContent = problem ? `hub: ${problem}` : ''; });
  const history = new MetricsHistory();
  live.onHeartbeat((hb) => history.add(hb));
  live.onApprovals((all) => {
    const n = all.filter((a) => a.status === 'pending').length;
    $('pending-badge').textContent = String(n);
    $('pending-badge').hidden = n === 0;
  });

  const views = {
    overview: overviewView(live, api),
    nodes: nodesView(live, history),
    approvals: approvalsView(live, api, who),
    console: consoleView(live, api),
    audit: auditView(api),
    node: nodeView(live, api, history, catalog),
    call: callView(api),
  };
  // admins only: for anyone else the view does not exist (the hub refuses its API to them too)
  if (who.roles.includes('admin')) {
    views.revocations = revocationsView(api);
    document.querySelector('#nav a[data-view=revocations]').hidden = false;
  }
  // pages opened from another view: the nav marks the view they belong to
  const navOf = { node: 'nodes', call: 'audit' };
  const sections = {};
  for (const [name, view] of Object.entries(views)) {
    sections[name] = h('section', { id: `view-${name}`, hidden: true }, view.element);
    $('view').append(sections[name]);
  }
  const route = () => {
    const hash = window.location.hash.slice(1);
    const slash = hash.indexOf('/');
    let name = slash < 0 ? hash : hash.slice(0, slash);
    const param = slash < 0 ? null : decodeURIComponent(hash.slice(slash + 1));
    if (!views[name] || (name in navOf) !== Boolean(param)) name = 'overview';
    for (const [n, section] of Object.entries(sections)) section.hidden = n !== name;
    const nav = navOf[name] || name;
    document.querySelectorAll('#nav a').forEach((a) => a.classList.toggle('active', a.dataset.view === nav));
    document.title = `fleetbus · ${name}`;
    views[name].shown(param);
  };
  window.addEventListener('hashchange', route);
  route();

  $('sign-out').addEventListener('click', () => {
    forgetToken();
    live.close();
    window.location.replace(window.location.pathname);
  });
}

// Who the hub says the token stands for, with the fleetbus roles an issuer's groups map to.
async function whoami(api, token) {
  const who = claims(token);
  try {
    const { body } = await api.get('/api/v1/whoami');
    return { ...who, subject: body.subject, roles: body.roles || [] };
  } catch (e) {
    return who; // a hub without the route: what the token itself says
  }
}

// A banner while the cluster has a member that is neither a hub of this fleet nor a proven node's (admins only).
function watchCluster(api) {
  const check = async () => {
    try {
      const { body } = await api.get('/api/v1/cluster');
      const intruders = (body.members || []).filter((m) => m.intruder);
      const banner = $('cluster-banner');
      banner.textContent = intruders.length === 0 ? ''
        : `Intruder in the cluster: ${intruders.map((m) => m.address).join(', ')} is neither a hub of this fleet nor a`
          + ' proven node. It receives nothing meant for a node; find and stop it, or give the fleet another cluster name.';
      banner.hidden = intruders.length === 0;
      showSplit(body.split);
    } catch (e) {
      // a hub without the route or a brief outage: no banner rather than a wrong one
    }
  };
  check();
  setInterval(check, 10000);
}

// A banner while this hub has lost hubs without a goodbye (crashed, hung, or cut off: a split brain), with since when.
function showSplit(split) {
  const banner = $('split-banner');
  const lost = (split && split.lostHubs) || [];
  banner.textContent = lost.length === 0 ? ''
    : `This hub holds ${split.state === 'half' ? 'half' : `a ${split.state}`} of the fleet's hubs (${split.hubs} of`
      + ` ${split.hubs + lost.length}): lost without a goodbye ${lost.map((h) => `${h.address} since ${h.since}`)
        .join(', ')}. Crashed, hung or cut off: if cut off, both sides serve on until the network heals.`;
  banner.hidden = lost.length === 0;
}

function showSignIn(error) {
  $('sign-in').hidden = false;
  showIssuers($('sign-in-issuers'), $('sign-in-buttons'));
  $('sign-in-error').textContent = error;
  $('sign-in-error').hidden = !error;
  $('sign-in-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const value = $('token-input').value.trim();
    if (value) {
      saveToken(value);
      window.location.reload();
    }
  });
}

start();
