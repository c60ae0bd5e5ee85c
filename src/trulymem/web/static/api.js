// Requests to the trulymem API: the API key (when the server uses keys) and the user to act as.

const KEY = "trulymem.key";
const USER = "trulymem.user";

export class AuthNeeded extends Error {}

export class ApiError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || `HTTP ${status}`);
    this.status = status;
    this.type = e.type;
    this.field = e.field;
  }
}

export function signIn(key, user) {
  sessionStorage.setItem(KEY, key);
  if (user) sessionStorage.setItem(USER, user); else sessionStorage.removeItem(USER);
}

export function signOut() {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(USER);
}

export function signedIn() {
  return sessionStorage.getItem(KEY) !== null;
}

function headers(json) {
  const h = {};
  const key = sessionStorage.getItem(KEY);
  if (key) h.Authorization = `Bearer ${key}`;
  if (json) h["Content-Type"] = "application/json";
  return h;
}

export function url(path, params = {}) {
  const u = new URL(path, location.origin);
  const user = sessionStorage.getItem(USER);
  if (user) u.searchParams.set("user_id", user);
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") u.searchParams.set(k, v);
  return u.toString();
}

export async function call(method, path, { params, body } = {}) {
  const res = await fetch(url(path, params), {
    method, headers: headers(body !== undefined), body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (res.status === 401) throw new AuthNeeded((data && data.error && data.error.message) || "sign in");
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

export const get = (path, params) => call("GET", path, { params });
export const post = (path, body, params) => call("POST", path, { body, params });

// POST /v1/chat, read as server-sent events: onEvent(name, data) for each event.
export async function stream(path, body, onEvent) {
  const res = await fetch(url(path), { method: "POST", headers: headers(true), body: JSON.stringify(body) });
  if (res.status === 401) throw new AuthNeeded("sign in");
  if (!res.ok) {
    let data = null;
    try { data = await res.json(); } catch { data = null; }
    throw new ApiError(res.status, data);
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      let event = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      }
      if (data.length) onEvent(event, JSON.parse(data.join("\n")));
    }
  }
}
