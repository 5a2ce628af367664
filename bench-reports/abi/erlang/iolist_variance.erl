%% How much iolist_to_binary/1 of one iolist (the seed's 700,000 strings as binaries, the
%% iolist of their external-term encoding) varies from one call to the next in one VM, and how
%% many garbage collections each call ran (count, words reclaimed). With `true`, a bufkit append
%% of the same iolist is timed before each call, as iolist_alone_bench.erl does.
%% Run: erlc -o /tmp bench-reports/abi/erlang/seed_iolist.erl bench-reports/abi/erlang/iolist_variance.erl &&
%%      erl -noshell -pa build/erlang/bufkit/ebin -pa /tmp -eval 'iolist_variance:run(true), halt().'
-module(iolist_variance).
-export([run/1]).

run(WithAppend) ->
    IoList = seed_iolist:iolist(binaries, seed_iolist:strings()),
    Append = fun() -> seed_iolist:append_to_fresh_buffer(IoList) end,
    Flatten = fun() -> iolist_to_binary(IoList) end,
    Calls = [begin
                 WithAppend andalso timed(Append),
                 timed(Flatten)
             end || _ <- lists:seq(1, 7)],
    io:format("with_append=~p, iolist_to_binary calls {ms, gcs, words reclaimed}: ~p~n", [WithAppend, Calls]).

timed(F) ->
    garbage_collect(),
    {Gcs0, Words0, _} = erlang:statistics(garbage_collection),
    {Us, _} = timer:tc(F),
    {Gcs1, Words1, _} = erlang:statistics(garbage_collection),
    {round(Us / 100) / 10, Gcs1 - Gcs0, Words1 - Words0}.
