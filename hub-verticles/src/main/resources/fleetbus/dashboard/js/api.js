// The hub's REST API with the signed-in user's token. Failures become ApiError with the hub's code and message.

export class ApiError extends Error {
  constructor(status, code, message, body) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body; // the answer's JSON (a failed call's record comes with its failure status)
  }
}

export function createApi(token) {
  async function request(method, path, body) {
    const headers = { Authorization: `Bearer ${token}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res;
    try {
      res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      throw new ApiError(0, 0, `the hub did not answer (${e.message})`);
    }
    const text = await res.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : {};
    } catch (e) {
      json = null;
    }
    if (!res.ok) {
      const err = json && json.error ? json.error : {};
      throw new ApiError(res.status, err.code || res.status, err.message || `HTTP ${res.status} from ${path}`, json);
    }
    return { status: res.status, body: json || {} };
  }
  return {
    token,
    get: (path) => request('GET', path),
    post: (path, body) => request('POST', path, body === undefined ? {} : body),
  };
}
