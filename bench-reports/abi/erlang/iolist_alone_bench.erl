%% One iolist alone in a VM: the seed's 700,000 strings as the iolist of their external-term
%% encoding, either with each string a binary (`binaries`) or a character list (`chars`), appended
%% to a bufkit buffer in one call against iolist_to_binary/1 of it, alternating, Rounds rounds,
%% medians. iolist_bench.erl times six variants over both iolists in one VM; here nothing else is
%% built or timed, so each run compares the two on the list alone.
%% Run: erlc -o /tmp bench-reports/abi/erlang/seed_iolist.erl bench-reports/abi/erlang/iolist_alone_bench.erl &&
%%      erl -noshell -pa build/erlang/bufkit/ebin -pa /tmp -eval 'iolist_alone_bench:run(31, binaries), halt().'
-module(iolist_alone_bench).
-export([run/2]).

run(Rounds, Kind) ->
    Strings = seed_iolist:strings(),
    IoList = seed_iolist:iolist(Kind, Strings),
    Expected = term_to_binary(Strings),
    Expected = seed_iolist:appended_bytes(IoList),
    Expected = iolist_to_binary(IoList),
    Append = fun() -> seed_iolist:append_to_fresh_buffer(IoList) end,
    Flatten = fun() -> iolist_to_binary(IoList) end,
    Times = [{timed(Append), timed(Flatten)} || _ <- lists:seq(1, Rounds)],
    A = median([X || {X, _} <- Times]),
    F = median([Y || {_, Y} <- Times]),
    io:format("{\"kind\":\"~s\",\"append_ms\":~.1f,\"iolist_to_binary_ms\":~.1f,\"ratio\":~.2f}~n", [Kind, A, F, F / A]).

timed(F) ->
    garbage_collect(),
    {Us, _} = timer:tc(F),
    Us / 1000.

median(L) -> lists:nth(length(L) div 2 + 1, lists:sort(L)).
