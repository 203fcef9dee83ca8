/**
 * Runs a Lua health script the way Argo CD does (argo-cd `util/lua/lua.go` `ExecuteHealthLua`), on fengari
 * (a Lua VM in plain JavaScript, synchronous, so health stays a pure function).
 *
 * - A fresh Lua state per run. Global `obj` is the live object (maps and lists as tables, JSON null as nil),
 *   `actionParams` an empty table.
 * - Libraries (`runLuaWithResourceActionParameters`): base, package and table, and `require("os")` gives
 *   the safe os subset (time, date). With `useOpenLibs` the standard libraries too: string, math,
 *   coroutine, and `os` as the same safe subset. Never io, debug, dofile, loadfile or file searchers: a
 *   script from a cluster's ConfigMap must not reach the user's files. `print` prints nothing (Argo CD's
 *   goes to the controller log, never to an app's status).
 * - Bounded: a run stops after `LUA_INSTRUCTION_LIMIT` VM instructions (Argo CD stops a script after one
 *   second; an instruction count gives the same verdict on every machine).
 * - The returned value, as Argo CD reads it through JSON: a table with string keys gives {status, message};
 *   nil, an empty table, a list or a field of another type give no health; an unknown status is Unknown
 *   "Lua returned an invalid health status"; a value that is not a table is an error
 *   "expect table output from Lua script, not <type>".
 * Errors (syntax, runtime, limit) are thrown as `LuaHealthError` with Lua's message; the caller shows them
 * as Unknown health (assess.ts). Lua 5.3 (fengari) differs from Argo CD's gopher-lua (5.1) in a few places,
 * listed in docs/health.md.
 */
import fengari from 'fengari';
import type { HealthResult, HealthStatus, Unstructured } from './types.js';
import { HEALTH_ORDER } from './types.js';

const { lua, lauxlib, lualib, to_luastring } = fengari;
type State = ReturnType<typeof lauxlib.luaL_newstate>;

/** VM instructions a health script may run (about a quarter of a second on a laptop). */
export const LUA_INSTRUCTION_LIMIT = 10_000_000;
const HOOK_EVERY = 1000;

export class LuaHealthError extends Error {
  override name = 'LuaHealthError';
}

export interface LuaHealthOptions {
  useOpenLibs?: boolean;
  /** Default LUA_INSTRUCTION_LIMIT. */
  instructionLimit?: number;
}

// Runs after the libraries open: narrows them to what Argo CD gives a script.
const PRELUDE = `
local open = ...
local full = package.loaded.os
local safe = { time = full.time, date = full.date }
if open then safe.clock = full.clock; safe.difftime = full.difftime end
package.loaded.os = nil
package.preload.os = function() return safe end
os = open and safe or nil
if open then package.loaded.os = safe end
local preload = package.searchers[1]
package.searchers = { preload }
package.path = ''
package.cpath = ''
package.loadlib = nil
dofile = nil
loadfile = nil
print = function() end
unpack = unpack or table.unpack
table.getn = table.getn or function(t) return #t end
`;

const LIBS_ALWAYS: Array<[string, (L: State) => number]> = [
  ['_G', lualib.luaopen_base],
  ['package', lualib.luaopen_package],
  ['table', lualib.luaopen_table],
];
const LIBS_OPEN: Array<[string, (L: State) => number]> = [
  ['string', lualib.luaopen_string],
  ['math', lualib.luaopen_math],
  ['coroutine', lualib.luaopen_coroutine],
];

function newState(useOpenLibs: boolean): State {
  const L = lauxlib.luaL_newstate();
  for (const [name, open] of [...LIBS_ALWAYS, ...(useOpenLibs ? LIBS_OPEN : [])]) {
    lauxlib.luaL_requiref(L, to_luastring(name), open, 1);
    lua.lua_pop(L, 1);
  }
  // The os library is opened unregistered: the prelude keeps only its safe functions.
  lauxlib.luaL_requiref(L, to_luastring('os'), lualib.luaopen_os, 0);
  lua.lua_pop(L, 1);
  if (lauxlib.luaL_loadbuffer(L, to_luastring(PRELUDE), null, to_luastring('=prelude')) !== lua.LUA_OK)
    throw new Error(`Lua prelude: ${lua.lua_tojsstring(L, -1)}`);
  lua.lua_pushboolean(L, useOpenLibs);
  if (lua.lua_pcall(L, 1, 0, 0) !== lua.LUA_OK) throw new Error(`Lua prelude: ${lua.lua_tojsstring(L, -1)}`);
  return L;
}

/** JSON value -> Lua value on the stack (`decodeValue`). */
function push(L: State, value: unknown): void {
  if (value === null || value === undefined) lua.lua_pushnil(L);
  else if (typeof value === 'boolean') lua.lua_pushboolean(L, value);
  else if (typeof value === 'number') {
    // Whole numbers as Lua integers, so tostring(3) is "3" as in gopher-lua (fengari's integers are 32-bit).
    if (Number.isInteger(value) && Math.abs(value) <= 0x7fffffff) lua.lua_pushinteger(L, value);
    else lua.lua_pushnumber(L, value);
  } else if (typeof value === 'string') lua.lua_pushstring(L, to_luastring(value));
  else if (Array.isArray(value)) {
    lua.lua_createtable(L, value.length, 0);
    value.forEach((item, i) => {
      push(L, item);
      lua.lua_rawseti(L, -2, i + 1);
    });
  } else if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    lua.lua_createtable(L, 0, entries.length);
    for (const [k, v] of entries) {
      if (v === null || v === undefined) continue;
      push(L, v);
      lua.lua_setfield(L, -2, to_luastring(k));
    }
  } else lua.lua_pushnil(L);
}

const TYPE_NAMES: Record<number, string> = {
  [lua.LUA_TNIL]: 'nil',
  [lua.LUA_TBOOLEAN]: 'boolean',
  [lua.LUA_TNUMBER]: 'number',
  [lua.LUA_TSTRING]: 'string',
  [lua.LUA_TTABLE]: 'table',
  [lua.LUA_TFUNCTION]: 'function',
  [lua.LUA_TUSERDATA]: 'userdata',
  [lua.LUA_TTHREAD]: 'thread',
  [lua.LUA_TLIGHTUSERDATA]: 'userdata',
};

/** The Lua value at `idx` as JSON, as gopher-json encodes it (its errors included). */
function toJson(L: State, idx: number, seen: Set<unknown>): unknown {
  const t = lua.lua_type(L, idx);
  if (t === lua.LUA_TNIL) return null;
  if (t === lua.LUA_TBOOLEAN) return lua.lua_toboolean(L, idx);
  if (t === lua.LUA_TNUMBER) return lua.lua_tonumber(L, idx);
  if (t === lua.LUA_TSTRING) return lua.lua_tojsstring(L, idx);
  if (t !== lua.LUA_TTABLE) throw new LuaHealthError(`cannot encode ${TYPE_NAMES[t] ?? 'value'} to JSON`);
  const id = lua.lua_topointer(L, idx);
  if (seen.has(id)) throw new LuaHealthError('cannot encode recursively nested tables to JSON');
  seen.add(id);
  const abs = lua.lua_absindex(L, idx);
  const list: unknown[] = [];
  const map: Record<string, unknown> = {};
  let mode: 'empty' | 'list' | 'map' = 'empty';
  lua.lua_pushnil(L);
  while (lua.lua_next(L, abs) !== 0) {
    const kt = lua.lua_type(L, -2);
    const keyMode = kt === lua.LUA_TNUMBER ? 'list' : kt === lua.LUA_TSTRING ? 'map' : 'bad';
    if (keyMode === 'bad' || (mode !== 'empty' && mode !== keyMode)) {
      lua.lua_pop(L, 2);
      throw new LuaHealthError('cannot encode mixed or invalid key types');
    }
    mode = keyMode;
    if (keyMode === 'list') {
      if (lua.lua_tonumber(L, -2) !== list.length + 1) {
        lua.lua_pop(L, 2);
        throw new LuaHealthError('cannot encode sparse array');
      }
      list.push(toJson(L, -1, seen));
    } else {
      // The key is a string already: reading it never converts it (which would confuse lua_next).
      map[lua.lua_tojsstring(L, -2)] = toJson(L, -1, seen);
    }
    lua.lua_pop(L, 1);
  }
  seen.delete(id);
  return mode === 'map' ? map : list;
}

/** Go's json.Unmarshal into HealthStatus: fields match case-insensitively, exact names first. */
function field(obj: Record<string, unknown>, name: string): unknown {
  if (name in obj) return obj[name];
  const key = Object.keys(obj).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : obj[key];
}

function toHealth(value: unknown): HealthResult | undefined {
  // Any JSON type mismatch is swallowed by Argo CD into an empty HealthStatus: no health.
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const obj = value as Record<string, unknown>;
  const status = field(obj, 'status');
  const message = field(obj, 'message');
  if (status !== undefined && status !== null && typeof status !== 'string') return undefined;
  if (message !== undefined && message !== null && typeof message !== 'string') return undefined;
  if (!HEALTH_ORDER.includes(status as HealthStatus))
    return { status: 'Unknown', message: 'Lua returned an invalid health status' };
  return { status: status as HealthStatus, ...(message ? { message } : {}) };
}

/** Runs `script` on `obj`; `undefined` when the script gives no health. Throws LuaHealthError. */
export function runHealthLua(
  script: string,
  obj: Unstructured,
  options: LuaHealthOptions = {},
): HealthResult | undefined {
  const L = newState(options.useOpenLibs === true);
  const limit = options.instructionLimit ?? LUA_INSTRUCTION_LIMIT;
  let counted = 0;
  lua.lua_sethook(
    L,
    (hooked: State) => {
      counted += HOOK_EVERY;
      if (counted > limit)
        lauxlib.luaL_error(hooked, to_luastring(`script stopped after ${limit} instructions (timeout)`));
    },
    lua.LUA_MASKCOUNT,
    HOOK_EVERY,
  );
  lua.lua_createtable(L, 0, 0);
  lua.lua_setglobal(L, to_luastring('actionParams'));
  push(L, obj);
  lua.lua_setglobal(L, to_luastring('obj'));
  if (lauxlib.luaL_loadbuffer(L, to_luastring(script), null, to_luastring('=<string>')) !== lua.LUA_OK)
    throw new LuaHealthError(lua.lua_tojsstring(L, -1));
  if (lua.lua_pcall(L, 0, lua.LUA_MULTRET, 0) !== lua.LUA_OK) {
    const t = lua.lua_type(L, -1);
    throw new LuaHealthError(
      t === lua.LUA_TSTRING || t === lua.LUA_TNUMBER
        ? lua.lua_tojsstring(L, -1)
        : `(error object is a ${TYPE_NAMES[t] ?? 'value'})`,
    );
  }
  // Argo CD reads the top of the stack: the last value returned, or nil when nothing was.
  const t = lua.lua_gettop(L) === 0 ? lua.LUA_TNIL : lua.lua_type(L, -1);
  if (t === lua.LUA_TNIL) return undefined;
  if (t !== lua.LUA_TTABLE)
    throw new LuaHealthError(`expect table output from Lua script, not ${TYPE_NAMES[t] ?? 'value'}`);
  return toHealth(toJson(L, -1, new Set()));
}
