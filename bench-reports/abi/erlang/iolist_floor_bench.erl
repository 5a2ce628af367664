%% How far below iolist_to_binary/1 any NIF append of an iolist can go. One VM, the seed's
%% 700,000 strings as the iolist of their external-term encoding (as in iolist_alone_bench.erl),
%% timing per round, in an order that rotates each round:
%%   size    erlang:iolist_size/1: the VM's own walk, no copy;
%%   floor   walk_floor:walk/1: the fewest NIF API calls any NIF walk makes, no copy;
%%   append  bufkit:buffer_append/2 into a fresh buffer (what a caller writes);
%%   reuse   bufkit:buffer_append/2 into a buffer cleared and reused;
%%   flat_append  iolist_to_binary/1, then that binary appended to a fresh buffer (the VM walks);
%%   flatten iolist_to_binary/1.
%% Prints each variant's median and the median over rounds of flatten ÷ each variant (each ratio
%% taken within one round, so the machine's drift between rounds cancels).
%% Gc: `gc` runs a full garbage collection of the process before each timing (as the earlier
%% benches did); `no_gc` does not, so the VM collects when it would by itself. The two give
%% iolist_to_binary/1 very different times (bench-reports/abi.md says how much); the NIF's
%% variants barely move.
%% Run: bash bench-reports/abi/erlang/iolist_floor_bench.sh [ROUNDS] [binaries|chars] [gc|no_gc]
-module(iolist_floor_bench).
-export([run/3]).

run(Rounds, Kind, Gc) ->
    IoList = seed_iolist:iolist(Kind, seed_iolist:strings()),
    Expected = iolist_to_binary(IoList),
    Size = byte_size(Expected),
    Size = erlang:iolist_size(IoList),
    Size = walk_floor:walk(IoList),
    Expected = seed_iolist:appended_bytes(IoList),
    {ok, Reused} = bufkit:buffer_new(),
    Variants = [{size, fun() -> erlang:iolist_size(IoList) end},
                {floor, fun() -> walk_floor:walk(IoList) end},
                {append, fun() -> seed_iolist:append_to_fresh_buffer(IoList) end},
                {reuse, fun() ->
                                ok = bufkit:buffer_clear(Reused),
                                ok = bufkit:buffer_append(Reused, IoList)
                        end},
                {flat_append, fun() -> seed_iolist:append_to_fresh_buffer(iolist_to_binary(IoList)) end},
                {flatten, fun() -> iolist_to_binary(IoList) end}],
    Rows = [round_times(rotate(Variants, R), Gc) || R <- lists:seq(1, Rounds)],
    Names = [N || {N, _} <- Variants],
    Medians = [{N, median([proplists:get_value(N, Row) || Row <- Rows])} || N <- Names],
    Ratios = [{N, median([proplists:get_value(flatten, Row) / proplists:get_value(N, Row) || Row <- Rows])}
              || N <- Names],
    io:format("~s, ~s, ~b rounds, ~b bytes~n", [Kind, Gc, Rounds, Size]),
    io:format("~-12s ~10s ~22s~n", ["variant", "median ms", "iolist_to_binary / it"]),
    [io:format("~-12s ~10.1f ~22.2f~n", [N, M, proplists:get_value(N, Ratios)]) || {N, M} <- Medians],
    ok = bufkit:buffer_free(Reused).

rotate(L, R) ->
    {A, B} = lists:split(R rem length(L), L),
    B ++ A.

round_times(Variants, Gc) -> [{N, timed(F, Gc)} || {N, F} <- Variants].

timed(F, Gc) ->
    Gc =:= gc andalso garbage_collect(),
    {Us, _} = timer:tc(F),
    Us / 1000.

median(L) -> lists:nth(length(L) div 2 + 1, lists:sort(L)).
