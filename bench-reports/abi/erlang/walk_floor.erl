%% Loads walk_floor_nif.so (see walk_floor_nif.c) from the directory this module was loaded from.
-module(walk_floor).
-export([walk/1]).
-on_load(init/0).
init() -> erlang:load_nif(filename:join(filename:dirname(code:which(?MODULE)), "walk_floor_nif"), 0).
walk(_IoList) -> erlang:nif_error(not_loaded).
