/**
 * The part of fengari's C-like API (Lua 5.3's `lua.h`/`lauxlib.h`/`lualib.h`, same names) that lua.ts
 * uses; fengari ships no type declarations. Strings crossing the API are Lua strings (`Uint8Array`).
 */
declare module 'fengari' {
  type LuaState = { readonly __luaState: unique symbol };
  type LuaString = Uint8Array;
  type CFunction = (L: LuaState) => number;

  interface Lua {
    readonly LUA_OK: number;
    readonly LUA_MULTRET: number;
    readonly LUA_MASKCOUNT: number;
    readonly LUA_TNIL: number;
    readonly LUA_TBOOLEAN: number;
    readonly LUA_TLIGHTUSERDATA: number;
    readonly LUA_TNUMBER: number;
    readonly LUA_TSTRING: number;
    readonly LUA_TTABLE: number;
    readonly LUA_TFUNCTION: number;
    readonly LUA_TUSERDATA: number;
    readonly LUA_TTHREAD: number;
    lua_absindex(L: LuaState, idx: number): number;
    lua_createtable(L: LuaState, narr: number, nrec: number): void;
    lua_gettop(L: LuaState): number;
    lua_next(L: LuaState, idx: number): number;
    lua_pcall(L: LuaState, nargs: number, nresults: number, msgh: number): number;
    lua_pop(L: LuaState, n: number): void;
    lua_pushboolean(L: LuaState, b: boolean): void;
    lua_pushinteger(L: LuaState, n: number): void;
    lua_pushnil(L: LuaState): void;
    lua_pushnumber(L: LuaState, n: number): void;
    lua_pushstring(L: LuaState, s: LuaString): void;
    lua_rawseti(L: LuaState, idx: number, n: number): void;
    lua_setfield(L: LuaState, idx: number, k: LuaString): void;
    lua_setglobal(L: LuaState, name: LuaString): void;
    lua_sethook(L: LuaState, hook: (L: LuaState, ar: unknown) => void, mask: number, count: number): void;
    lua_toboolean(L: LuaState, idx: number): boolean;
    lua_tojsstring(L: LuaState, idx: number): string;
    lua_tonumber(L: LuaState, idx: number): number;
    lua_topointer(L: LuaState, idx: number): unknown;
    lua_type(L: LuaState, idx: number): number;
  }

  interface LAuxLib {
    luaL_newstate(): LuaState;
    luaL_requiref(L: LuaState, name: LuaString, open: CFunction, global: number): void;
    luaL_loadbuffer(L: LuaState, buf: LuaString, size: number | null, name: LuaString): number;
    luaL_error(L: LuaState, message: LuaString): never;
  }

  interface LuaLib {
    luaopen_base: CFunction;
    luaopen_package: CFunction;
    luaopen_table: CFunction;
    luaopen_string: CFunction;
    luaopen_math: CFunction;
    luaopen_coroutine: CFunction;
    luaopen_os: CFunction;
  }

  const fengari: {
    lua: Lua;
    lauxlib: LAuxLib;
    lualib: LuaLib;
    to_luastring(s: string): LuaString;
  };
  export default fengari;
}
