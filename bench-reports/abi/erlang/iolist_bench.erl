%% The seed's workload from Erlang: 700,000 strings of 20-30 characters, as the iolist of their
%% external-term encoding ([STRING_EXT, Len:16, Chars] each, about 19.6 MB), appended to a bufkit
%% buffer in one call (the NIF walks the list) against what an Erlang programmer has today:
%% iolist_to_binary/1 of it, term_to_binary/1 of the list of strings, and the old bufkit path
%% (iolist_to_binary, then append). Bytes checked equal. One VM, alternating, medians.
%% Run: erlc -o /tmp bench-reports/abi/erlang/iolist_bench.erl &&
%%      erl -noshell -pa build/erlang/bufkit/ebin -pa /tmp -eval 'iolist_bench:run(9), halt().'
-module(iolist_bench).
-export([run/1]).

run(Rounds) ->
    rand:seed(exsss, {1, 2, 3}),
    Alphabet = list_to_tuple("abcdefghijklmnopqrstuvwxyz0123456789_"),
    Strings = [[element(rand:uniform(37), Alphabet) || _ <- lists:seq(1, 19 + rand:uniform(11))]
               || _ <- lists:seq(1, 700000)],
    %% The strings as character lists (as JInterface's users hold them), and as binaries.
    IoList = [131, 108, <<700000:32>>, [[107, <<(length(S)):16>>, S] || S <- Strings], 106],
    Binaries = [131, 108, <<700000:32>>, [[<<107, (length(S)):16>>, list_to_binary(S)] || S <- Strings], 106],
    Expected = term_to_binary(Strings),
    Expected = iolist_to_binary(IoList),
    Expected = iolist_to_binary(Binaries),
    Variants = [{iolist_to_binary, fun() -> byte_size(iolist_to_binary(IoList)) end},
                {term_to_binary, fun() -> byte_size(term_to_binary(Strings)) end},
                {bufkit_append_iolist, fun() -> append(IoList) end},
                {bufkit_flatten_then_append, fun() -> append(iolist_to_binary(IoList)) end},
                {binaries_iolist_to_binary, fun() -> byte_size(iolist_to_binary(Binaries)) end},
                {binaries_bufkit_append_iolist, fun() -> append(Binaries) end}],
    [begin
         {ok, B} = bufkit:buffer_new(),
         ok = bufkit:buffer_append(B, L),
         {ok, Expected} = bufkit:buffer_to_binary(B),
         ok = bufkit:buffer_free(B)
     end || L <- [IoList, Binaries]],
    Times = [[{Name, timed(F)} || {Name, F} <- Variants] || _ <- lists:seq(1, Rounds + 2)],
    Measured = lists:nthtail(2, Times),
    Medians = [{Name, median([proplists:get_value(Name, R) || R <- Measured])} || {Name, _} <- Variants],
    io:format("{\"otp\":\"~s\",\"bytes\":~b,~s}~n",
              [erlang:system_info(otp_release), byte_size(Expected),
               lists:join(",", [io_lib:format("\"~s_ms\":~.2f", [N, T]) || {N, T} <- Medians])]).

append(Data) ->
    {ok, B} = bufkit:buffer_new(),
    ok = bufkit:buffer_append(B, Data),
    {ok, Len} = bufkit:buffer_len(B),
    ok = bufkit:buffer_free(B),
    Len.

timed(F) ->
    garbage_collect(),
    {Us, _} = timer:tc(F),
    Us / 1000.

median(L) -> lists:nth(length(L) div 2 + 1, lists:sort(L)).
