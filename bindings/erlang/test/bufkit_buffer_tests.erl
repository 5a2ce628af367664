%% Growable buffers: every growth policy, iodata walked as it is, counters, limits, bad input and
%% misuse, dirty scheduling, panics, sharing and garbage collection.
-module(bufkit_buffer_tests).
-include_lib("eunit/include/eunit.hrl").

pieces(N) ->
    [list_to_binary(lists:duplicate(20 + (I rem 11), $a + (I rem 26))) || I <- lists:seq(1, N)].

roundtrip_every_policy_test_() ->
    Pieces = pieces(5000),
    Expected = iolist_to_binary(Pieces),
    [{atom_to_list(G), fun() ->
        {ok, B} = bufkit:buffer_new(#{growth => G, step => 2048, chunk_size => 4096}),
        [ok = bufkit:buffer_append(B, P) || P <- Pieces],
        ?assertEqual({ok, Expected}, bufkit:buffer_to_binary(B)),
        ?assertEqual({ok, byte_size(Expected)}, bufkit:buffer_len(B)),
        ok = bufkit:buffer_free(B)
     end} || G <- [geometric, linear, exact, segmented]].

iodata_is_accepted_test() ->
    {ok, B} = bufkit:buffer_new(),
    ok = bufkit:buffer_append(B, [<<"hello ">>, "wor", [$l, <<"d">>]]),
    ?assertEqual({ok, <<"hello world">>}, bufkit:buffer_to_binary(B)).

%% Deeply nested, with integers, improper tails, sub-binaries, large and empty binaries: the
%% NIF walks the list itself and appends exactly what iolist_to_binary/1 would make.
iolists_are_walked_not_flattened_test_() ->
    Big = binary:copy(<<"0123456789">>, 1000),
    <<_:3/binary, Sub:5000/binary, _/binary>> = Big,
    Deep = lists:foldl(fun(I, Acc) -> [Acc, I rem 256] end, [], lists:seq(1, 300)),
    Long = [[<<"k">>, integer_to_binary(I), $=, <<"v">> | <<";">>] || I <- lists:seq(1, 20000)],
    Cases = [{"nested", [<<"hello ">>, "wor", [$l, <<"d">>]]},
             {"improper tails", [$a, [$b | <<"c">>] | <<"d">>]},
             {"large and sub-binaries", [Big, $|, Sub, [[], <<>>, [[]]], Big]},
             {"deeper than the stack's first 64", Deep},
             {"long: walked on a dirty scheduler", Long},
             {"empty", []},
             %% A nested list's first cell is read once and the walk goes on from it: lists
             %% that start with a binary, a list or [], and the seed's [header, string] shape.
             {"lists that start with a binary, a list or []",
              [[<<"ab">>, "cd"], [[<<"e">>], $f], [[], <<"g">>, [[[], [<<"h">> | <<"i">>]]]], [[[$j]], <<>>], [[] | <<"k">>]]},
             {"the seed's shape, on a dirty scheduler", [131, [[<<107, 3:16>>, <<"abc">>] || _ <- lists:seq(1, 5000)], 106]},
             {"a whole string", "just characters"},
             %% Character lists are taken whole (enif_get_string); these cross its cases: longer
             %% than the 4 KiB staging, NUL and 255, many short ones filling the staging, and lists
             %% that turn out not to be strings after a few characters.
             {"strings", [lists:duplicate(5000, $a), [0, 255, 0], [lists:seq(0, 255) || _ <- lists:seq(1, 40)],
                          [[1, 2, 3] || _ <- lists:seq(1, 3000)], [1, 2, 3 | <<4>>], [7, 8, <<9>>, 10],
                          [lists:duplicate(4094, $b), [$c, [$d]]]]}],
    [{Name, fun() ->
        [begin
             {ok, B} = bufkit:buffer_new(#{growth => G, chunk_size => 4096}),
             ok = bufkit:buffer_append(B, <<"before:">>),
             ok = bufkit:buffer_append(B, IoList),
             ?assertEqual({ok, iolist_to_binary([<<"before:">>, IoList])}, bufkit:buffer_to_binary(B))
         end || G <- [geometric, segmented]]
     end} || {Name, IoList} <- Cases].

iolist_append_refuses_bad_input_and_keeps_data_test() ->
    {ok, B} = bufkit:buffer_new(#{max_capacity => 256}),
    ok = bufkit:buffer_append(B, [binary:copy(<<1>>, 100), [2, 3]]),
    ?assertEqual({error, capacity_exceeded}, bufkit:buffer_append(B, [binary:copy(<<2>>, 100), [binary:copy(<<3>>, 100)]])),
    ?assertError(badarg, bufkit:buffer_append(B, [<<"a">>, 256])),
    ?assertError(badarg, bufkit:buffer_append(B, [<<"a">> | foo])),
    ?assertError(badarg, bufkit:buffer_append(B, ["bc", [$d, 256]])),
    ?assertError(badarg, bufkit:buffer_append(B, [$a, -1])),
    ?assertError(badarg, bufkit:buffer_append(B, [[<<"a">>, foo]])),
    ?assertError(badarg, bufkit:buffer_append(B, [[[], 256]])),
    ?assertError(badarg, bufkit:buffer_append(B, [[<<"a">> | foo]])),
    ?assertError(badarg, bufkit:buffer_append(B, [[[<<"a">>], <<"b">> | 7]])),
    %% Every other kind of element: a bitstring that is not whole bytes, a bignum, an atom, a
    %% float, a tuple, a map, a pid.
    [?assertError(badarg, bufkit:buffer_append(B, [<<"ok">>, [Bad], <<"ok">>]))
     || Bad <- [<<1:3>>, 1 bsl 70, foo, 1.0, {1}, #{}, self()]],
    ?assertEqual({ok, iolist_to_binary([binary:copy(<<1>>, 100), 2, 3])}, bufkit:buffer_to_binary(B)),
    ok = bufkit:buffer_free(B),
    ?assertEqual({error, closed}, bufkit:buffer_append(B, ["x"])),
    %% A character list longer than the staging, bad only at its end: refused whole.
    {ok, Roomy} = bufkit:buffer_new(),
    ok = bufkit:buffer_append(Roomy, "kept"),
    ?assertError(badarg, bufkit:buffer_append(Roomy, ["more", lists:duplicate(5000, $a) ++ [256]])),
    ?assertEqual({ok, <<"kept">>}, bufkit:buffer_to_binary(Roomy)).

linear_counters_match_hand_computed_values_test() ->
    {ok, B} = bufkit:buffer_new(#{growth => linear, step => 100}),
    [ok = bufkit:buffer_append(B, binary:copy(<<0>>, 60)) || _ <- lists:seq(1, 5)],
    ?assertEqual({ok, #{len => 300, capacity => 300, grows => 3, moves => 2, bytes_copied => 240}},
                 bufkit:buffer_stats(B)).

segmented_copies_nothing_until_flattened_test() ->
    {ok, B} = bufkit:buffer_new(#{growth => segmented, chunk_size => 64}),
    ok = bufkit:buffer_append(B, binary:copy(<<7>>, 200)),
    {ok, #{grows := 4, bytes_copied := 0}} = bufkit:buffer_stats(B),
    ok = bufkit:buffer_flatten(B),
    {ok, #{bytes_copied := 200}} = bufkit:buffer_stats(B),
    ?assertEqual({ok, binary:copy(<<7>>, 200)}, bufkit:buffer_to_binary(B)).

capacity_limit_refuses_and_keeps_data_test() ->
    {ok, B} = bufkit:buffer_new(#{max_capacity => 256}),
    ok = bufkit:buffer_append(B, binary:copy(<<1>>, 200)),
    ?assertEqual({error, capacity_exceeded}, bufkit:buffer_append(B, binary:copy(<<2>>, 100))),
    ?assertEqual({ok, binary:copy(<<1>>, 200)}, bufkit:buffer_to_binary(B)).

bad_options_are_refused_test() ->
    ?assertEqual({error, invalid_argument}, bufkit:buffer_new(#{growth => quadratic})),
    ?assertEqual({error, invalid_argument}, bufkit:buffer_new(#{growth => geometric, factor => 0.5})),
    ?assertEqual({error, invalid_argument}, bufkit:buffer_new(#{step => -1})),
    ?assertEqual({error, invalid_argument}, bufkit:buffer_new(#{colour => blue})),
    ?assertEqual({error, invalid_argument}, bufkit:buffer_new(not_a_map)),
    ?assertEqual({error, capacity_exceeded}, bufkit:buffer_new(#{max_capacity => 10, initial_capacity => 11})),
    {ok, B} = bufkit:buffer_new(#{growth => geometric, factor => 3}),
    ?assertEqual({error, invalid_argument}, bufkit:buffer_append(B, not_iodata)),
    ?assertEqual({error, invalid_argument}, bufkit:buffer_reserve(B, -5)),
    ?assertError(badarg, bufkit:buffer_stats(make_ref())).

impossible_sizes_are_errors_test() ->
    {ok, B} = bufkit:buffer_new(),
    ok = bufkit:buffer_append(B, <<"kept">>),
    ?assertEqual({error, alloc_failed}, bufkit:buffer_reserve(B, 1 bsl 47)),
    ?assertEqual({error, length_overflow}, bufkit:buffer_reserve(B, 1 bsl 64 - 1)),
    ?assertEqual({ok, <<"kept">>}, bufkit:buffer_to_binary(B)).

use_after_free_is_an_error_not_a_crash_test() ->
    {ok, B} = bufkit:buffer_new(),
    ok = bufkit:buffer_append(B, <<"x">>),
    ok = bufkit:buffer_free(B),
    ok = bufkit:buffer_free(B),
    ?assertEqual({error, closed}, bufkit:buffer_append(B, <<"y">>)),
    ?assertEqual({error, closed}, bufkit:buffer_to_binary(B)),
    ?assertEqual({error, closed}, bufkit:buffer_stats(B)),
    ?assertEqual({error, closed}, bufkit:buffer_flatten(B)).

large_work_runs_on_dirty_schedulers_test() ->
    Big = binary:copy(<<"0123456789abcdef">>, 1 bsl 18), % 4 MiB: both the append and the copy go dirty
    {ok, B} = bufkit:buffer_new(#{growth => segmented}),
    ok = bufkit:buffer_append(B, Big),
    ok = bufkit:buffer_append(B, Big),
    {ok, Out} = bufkit:buffer_to_binary(B),
    ?assertEqual(<<Big/binary, Big/binary>>, Out).

a_rust_panic_comes_back_as_an_error_test() ->
    ?assertEqual({error, panic}, bufkit_nif:test_panic()),
    {ok, B} = bufkit:buffer_new(),
    ?assertEqual(ok, bufkit:buffer_append(B, <<"still works">>)).

shared_between_processes_test() ->
    {ok, B} = bufkit:buffer_new(),
    Self = self(),
    Procs = 8, Each = 2000,
    [spawn_link(fun() ->
        [ok = bufkit:buffer_append(B, <<"0123456789">>) || _ <- lists:seq(1, Each)],
        Self ! done
     end) || _ <- lists:seq(1, Procs)],
    [receive done -> ok end || _ <- lists:seq(1, Procs)],
    ?assertEqual({ok, Procs * Each * 10}, bufkit:buffer_len(B)).

garbage_collected_buffers_are_freed_test() ->
    % Many buffers dropped without buffer_free: the resource destructor frees them.
    [begin {ok, B} = bufkit:buffer_new(), ok = bufkit:buffer_append(B, binary:copy(<<1>>, 100000)) end
     || _ <- lists:seq(1, 200)],
    erlang:garbage_collect(),
    ok.
