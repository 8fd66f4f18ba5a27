// Shared by the client scripts: where the hub is, a hard deadline, and one line per passed check.
export const hubUrl = required('FLEETBUS_URL');
export const token = required('FLEETBUS_TOKEN');
export const node = required('FLEETBUS_NODE');

function required(name) {
  const value = process.env[name];
  if (!value) {
    console.error(`set ${name}`);
    process.exit(2);
  }
  return value;
}

/** Runs the checks; fails the process if they throw or do not finish within `seconds`. */
export async function run(name, seconds, body) {
  const deadline = setTimeout(() => {
    console.error(`${name}: did not finish within ${seconds} s`);
    process.exit(1);
  }, seconds * 1000);
  deadline.unref();
  try {
    await body();
    console.log(`${name}: all checks passed`);
    process.exit(0);
  } catch (err) {
    console.error(`${name}: FAILED: ${err && err.stack ? err.stack : err}`);
    process.exit(1);
  }
}

export function pass(what) {
  console.log(`ok - ${what}`);
}
