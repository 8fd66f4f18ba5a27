// The last few minutes of each node's heartbeat figures, kept from the moment the page opened.

const KEEP = 60;

export class MetricsHistory {
  constructor() {
    this.byNode = new Map();
  }

  add({ nodeId, metrics }) {
    if (!metrics) return;
    if (!this.byNode.has(nodeId)) this.byNode.set(nodeId, { cpu: [], mem: [], disk: [] });
    const s = this.byNode.get(nodeId);
    push(s.cpu, metrics.cpuPercent);
    push(s.mem, metrics.memoryTotalMb ? (100 * metrics.memoryMb) / metrics.memoryTotalMb : 0);
    push(s.disk, metrics.diskFreeMb / 1024);
  }

  series(nodeId) {
    return this.byNode.get(nodeId) || { cpu: [], mem: [], disk: [] };
  }
}

function push(list, value) {
  list.push(Number.isFinite(value) ? value : 0);
  if (list.length > KEEP) list.shift();
}
