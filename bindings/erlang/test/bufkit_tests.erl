%% EUnit tests of the bufkit NIF: the same Rust implementation as every other language, reached
%% through include/bufkit.h.
-module(bufkit_tests).
-include_lib("eunit/include/eunit.hrl").

%% A file of the bufkit checkout these tests sit in (bindings/erlang/test/): the header and the
%% fixtures the Rust, C and Java tests read too.
checkout_file(Path) ->
    Here = proplists:get_value(source, ?MODULE:module_info(compile)),
    Root = filename:dirname(filename:dirname(filename:dirname(filename:dirname(Here)))),
    filename:join(Root, Path).

%% The value of one of the header's #define lines, as a binary.
header_define(Name) ->
    {ok, Header} = file:read_file(checkout_file("include/bufkit.h")),
    {match, [Value]} = re:run(Header, "#define " ++ Name ++ " (\\S+)", [{capture, all_but_first, binary}]),
    Value.

methods_zip() -> checkout_file("crates/asset-extract/tests/data/methods.zip").

pieces(N) ->
    [list_to_binary(lists:duplicate(20 + (I rem 11), $a + (I rem 26))) || I <- lists:seq(1, N)].

version_matches_the_library_test() ->
    ?assertEqual(string:trim(header_define("BK_VERSION"), both, "\""), bufkit:version()),
    ?assertEqual(binary_to_integer(header_define("BK_ABI_VERSION")), bufkit:abi_version()).

%% The application's documentation builds (rebar.config publishes it with edoc): a `<<...>>' left
%% unquoted in a @doc is an XML error that stops edoc.
docs_build_with_edoc_test() ->
    Src = filename:join([filename:dirname(filename:dirname(code:which(bufkit))), "src"]),
    Dir = filename:join(os:getenv("TMPDIR", "/tmp"), "bufkit-edoc-" ++ os:getpid()),
    try
        ?assertEqual(ok, edoc:files(filelib:wildcard(filename:join(Src, "*.erl")), [{dir, Dir}]))
    after
        file:del_dir_r(Dir)
    end.

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

pool_lends_and_counts_test() ->
    {ok, Pool} = bufkit:pool_new(),
    {ok, L1} = bufkit:pool_acquire(Pool, 1000),
    ?assertEqual({ok, 4096}, bufkit:lease_size(L1)),
    ok = bufkit:pool_release(Pool, L1),
    {ok, L2} = bufkit:pool_acquire(Pool, 4096),
    ok = bufkit:pool_release(Pool, L2),
    {ok, #{hits := 1, misses := 1, returns := 2, outstanding_leases := 0, class_count := 11}} = bufkit:pool_stats(Pool).

pool_bad_leases_are_refused_test() ->
    {ok, Pool} = bufkit:pool_new(),
    {ok, Other} = bufkit:pool_new(),
    {ok, Lease} = bufkit:pool_acquire(Pool, 100),
    ?assertEqual({error, wrong_pool}, bufkit:pool_release(Other, Lease)),
    ok = bufkit:pool_release(Pool, Lease),
    ?assertEqual({error, lease_invalid}, bufkit:pool_release(Pool, Lease)),
    ?assertEqual({error, lease_invalid}, bufkit:lease_size(Lease)),
    ?assertEqual({error, invalid_argument}, bufkit:pool_acquire(Pool, 0)),
    ?assertEqual({error, invalid_argument}, bufkit:pool_acquire(Pool, -1)),
    ?assertEqual({error, invalid_argument}, bufkit:pool_new(#{min_class_size => 1000})),
    ?assertEqual({error, invalid_argument}, bufkit:pool_new(#{zero_on_acquire => maybe})),
    ?assertEqual({error, invalid_argument}, bufkit:pool_new(#{colour => blue})),
    ?assertError(badarg, bufkit:pool_stats(make_ref())).

pool_cap_and_trim_test() ->
    {ok, Pool} = bufkit:pool_new(#{max_retained_bytes => 8192}),
    Leases = [begin {ok, L} = bufkit:pool_acquire(Pool, 4096), L end || _ <- lists:seq(1, 4)],
    [ok = bufkit:pool_release(Pool, L) || L <- Leases],
    {ok, #{returns := 2, drops_over_cap := 2, retained_bytes := 8192}} = bufkit:pool_stats(Pool),
    ok = bufkit:pool_trim(Pool),
    {ok, #{retained_bytes := 0}} = bufkit:pool_stats(Pool).

pool_forgotten_leases_are_released_by_gc_test() ->
    {ok, Pool} = bufkit:pool_new(),
    Self = self(),
    spawn(fun() -> [{ok, _} = bufkit:pool_acquire(Pool, 4096) || _ <- lists:seq(1, 20)], Self ! done end),
    receive done -> ok end,
    timer:sleep(50), % the process is gone: its lease resources are collected
    erlang:garbage_collect(),
    {ok, #{outstanding_leases := 0}} = bufkit:pool_stats(Pool).

pool_shared_between_processes_test() ->
    {ok, Pool} = bufkit:pool_new(#{max_retained_bytes => 256 * 1024}),
    Self = self(),
    [spawn_link(fun() ->
        [begin {ok, L} = bufkit:pool_acquire(Pool, 4096 bsl ((I + N) rem 5)), ok = bufkit:pool_release(Pool, L) end
         || I <- lists:seq(1, 1000)],
        Self ! done
     end) || N <- lists:seq(1, 4)],
    [receive done -> ok end || _ <- lists:seq(1, 4)],
    {ok, #{outstanding_leases := 0, retained_bytes := R, hits := H, misses := M}} = bufkit:pool_stats(Pool),
    ?assert(R =< 256 * 1024),
    ?assertEqual(4000, H + M).

inflate_chained_streams_test() ->
    A = zlib:compress(<<"hello">>),
    B = zlib:compress(binary:copy(<<"world! ">>, 1000)),
    Input = <<A/binary, B/binary, "JUNK">>,
    {ok, <<"hello">>, CA} = bufkit:inflate_at(Input, 0, 5),
    ?assertEqual(byte_size(A), CA),
    {ok, Out, CB} = bufkit:inflate_at(Input, CA, 7000),
    ?assertEqual(binary:copy(<<"world! ">>, 1000), Out),
    ?assertEqual(byte_size(B), CB).

%% A size a truncated prefix cannot reach is refused before the NIF allocates it, with the status
%% bk_inflate_at gives (it was size_mismatch from a bound of the NIF's own).
inflate_refuses_an_unreachable_size_as_the_library_does_test() ->
    Prefix = binary:part(zlib:compress(binary:copy(<<0>>, 100000)), 0, 4),
    ?assertEqual({error, truncated}, bufkit:inflate_at(Prefix, 0, 100000)),
    ?assertEqual({error, out_of_range}, bufkit:inflate_at(Prefix, 9, 5)).

inflate_failures_have_their_reasons_test() ->
    S = zlib:compress(binary:copy(<<"abc">>, 1000)),
    N = byte_size(S),
    ?assertEqual({error, truncated}, bufkit:inflate_at(binary:part(S, 0, N - 3), 0, 3000)),
    <<Body:(N - 1)/binary, Last>> = S,
    ?assertEqual({error, checksum}, bufkit:inflate_at(<<Body/binary, (Last bxor 1)>>, 0, 3000)),
    ?assertEqual({error, size_mismatch}, bufkit:inflate_at(S, 0, 2999)),
    ?assertEqual({error, size_mismatch}, bufkit:inflate_at(S, 0, 3001)),
    ?assertEqual({error, size_mismatch}, bufkit:inflate_at(S, 0, 1 bsl 40)),
    ?assertEqual({error, out_of_range}, bufkit:inflate_at(S, N + 1, 1)),
    ?assertEqual({error, corrupt}, bufkit:inflate_at(<<16#79, (binary:part(S, 1, N - 1))/binary>>, 0, 3000)),
    ?assertEqual({error, invalid_argument}, bufkit:inflate_at(S, -1, 3000)),
    ?assertEqual({error, invalid_argument}, bufkit:inflate_at(not_a_binary, 0, 1)).

inflate_batch_test() ->
    A = zlib:compress(<<"first">>),
    B = zlib:compress(<<"second">>),
    Input = <<A/binary, B/binary>>,
    ?assertEqual([{ok, <<"first">>, byte_size(A)}, {ok, <<"second">>, byte_size(B)}, {error, out_of_range}],
                 bufkit:inflate_batch(Input, [{0, 5}, {byte_size(A), 6}, {9999, 1}])),
    ?assertEqual({error, invalid_argument}, bufkit:inflate_batch(Input, [{0, -5}])).

inflate_large_stream_on_a_dirty_scheduler_test() ->
    Data = binary:copy(<<"0123456789abcdef">>, 1 bsl 17), % 2 MiB: inflates dirty
    S = zlib:compress(Data),
    {ok, Data, C} = bufkit:inflate_at(S, 0, byte_size(Data)),
    ?assertEqual(byte_size(S), C).

inflate_matches_erlang_zlib_test() ->
    Streams = [zlib:compress(crypto_free_bytes(N)) || N <- [0, 1, 100, 5000, 70000]],
    Input = iolist_to_binary(Streams),
    {_, Results} = lists:foldl(fun({S, N}, {Off, Acc}) ->
                                   {ok, Out, C} = bufkit:inflate_at(Input, Off, N),
                                   ?assertEqual(zlib:uncompress(S), Out),
                                   {Off + C, [C | Acc]}
                               end, {0, []}, lists:zip(Streams, [0, 1, 100, 5000, 70000])),
    ?assertEqual([byte_size(S) || S <- Streams], lists:reverse(Results)).

crypto_free_bytes(N) -> << <<((I * 7919) rem 251)>> || I <- lists:seq(1, N) >>.

%% Runs Test with a new directory of its own under TMPDIR (or /tmp), removed however Test ends.
in_dir(Test) ->
    Dir = filename:join(os:getenv("TMPDIR", "/tmp"),
                        "bufkit-erl-" ++ os:getpid() ++ "-" ++ integer_to_list(erlang:unique_integer([positive]))),
    ok = file:make_dir(Dir),
    try
        Test(Dir)
    after
        file:del_dir_r(Dir)
    end.

extract_valid_archive_with_progress_test() ->
    in_dir(fun(Dir) ->
        Zip = filename:join(Dir, "a.zip"),
        {ok, _} = zip:create(Zip, [{"assets/app.js", binary:copy(<<"var x = 1;\n">>, 500)}, {"readme.txt", <<"hi">>}]),
        Dest = filename:join(Dir, "out"),
        {ok, #{files := 2, directories := 1, skipped := 0}} =
            bufkit:extract(Zip, Dest, #{threads => 2, progress => self(), progress_interval_ms => 0}),
        {ok, <<"hi">>} = file:read_file(filename:join(Dest, "readme.txt")),
        Progress = receive_all([]),
        ?assertEqual(2, length(Progress)),
        ?assert(lists:member({bufkit_extract_progress, 2, 2, 5502, 5502}, Progress)),
        %% An existing destination is never replaced unless asked: create mode refuses, untouched.
        ?assertEqual({error, {destination_refused, list_to_binary(Dest)}}, bufkit:extract(Zip, Dest, #{only => ["*.txt"]})),
        {ok, <<"hi">>} = file:read_file(filename:join(Dest, "readme.txt")),
        ?assertEqual({error, {nothing_selected, <<>>}}, bufkit:extract(Zip, Dest, #{mode => replace, only => ["*.png"]})),
        ?assertEqual({error, {invalid_argument, <<>>}}, bufkit:extract(Zip, Dest, #{mode => wipe})),
        {ok, #{files := 1, skipped := 1}} = bufkit:extract(Zip, Dest, #{mode => replace, only => ["*.txt"]}),
        ?assertNot(filelib:is_file(filename:join(Dest, "assets/app.js"))),
        {ok, #{files := 2}} = bufkit:extract(Zip, Dest, #{mode => merge}),
        {ok, #{files := 2, reused := 0}} = bufkit:extract(Zip, Dest, #{mode => replace, incremental => true}),
        {ok, #{files := 2, reused := 2}} = bufkit:extract(Zip, Dest, #{mode => replace, incremental => true})
    end).

%% A lease is read and written from Erlang: copies in and out, bounds checked, refused after release.
lease_read_and_write_test() ->
    {ok, P} = bufkit:pool_new(),
    {ok, L} = bufkit:pool_acquire(P, 4096),
    ok = bufkit:lease_write(L, 0, [<<"hello ">>, "world"]),
    ok = bufkit:lease_write(L, 4090, <<"edge!!">>),
    ?assertEqual({ok, <<"hello world">>}, bufkit:lease_read(L, 0, 11)),
    ?assertEqual({ok, <<"edge!!">>}, bufkit:lease_read(L, 4090, 6)),
    ?assertEqual({error, out_of_range}, bufkit:lease_write(L, 4091, <<"edge!!">>)),
    ?assertEqual({error, out_of_range}, bufkit:lease_read(L, 4000, 97)),
    ?assertEqual({error, out_of_range}, bufkit:lease_write(L, 1 bsl 62, <<"x">>)),
    ok = bufkit:pool_release(P, L),
    ?assertEqual({error, lease_invalid}, bufkit:lease_write(L, 0, <<"x">>)),
    ?assertEqual({error, lease_invalid}, bufkit:lease_read(L, 0, 1)),
    ?assertEqual({error, lease_invalid}, bufkit:lease_view(L)).

%% A view is a binary over the lease's memory: no copy, no more writes, and the memory stays the
%% pool's until the lease and the view are garbage, even after pool_release.
lease_view_keeps_its_memory_until_garbage_test() ->
    {ok, P} = bufkit:pool_new(#{thread_cache_buffers => 0}),
    Parent = self(),
    Holder = spawn(fun() ->
                           {ok, L} = bufkit:pool_acquire(P, 4096),
                           ok = bufkit:lease_write(L, 0, <<"immutable">>),
                           {ok, View} = bufkit:lease_view(L),
                           4096 = byte_size(View),
                           Refused = bufkit:lease_write(L, 0, <<"changed">>),
                           ok = bufkit:pool_release(P, L),
                           Twice = bufkit:pool_release(P, L),
                           Parent ! {ready, Refused, Twice},
                           receive check -> Parent ! {checked, binary:copy(binary:part(View, 0, 9))} end,
                           receive stop -> ok end
                   end),
    receive {ready, Refused, Twice} ->
            ?assertEqual({error, viewed}, Refused),
            ?assertEqual({error, lease_invalid}, Twice)
    end,
    {ok, #{outstanding_leases := 1}} = bufkit:pool_stats(P),
    %% Another lease cannot be handed that memory while the view lives.
    {ok, Other} = bufkit:pool_acquire(P, 4096),
    ok = bufkit:lease_write(Other, 0, <<"scribble!">>),
    ok = bufkit:pool_release(P, Other),
    Holder ! check,
    receive {checked, Seen} -> ?assertEqual(<<"immutable">>, Seen) end,
    Ref = monitor(process, Holder),
    Holder ! stop,
    receive {'DOWN', Ref, process, Holder, _} -> ok end,
    %% The holder, its lease and its view are garbage: the memory is the pool's again.
    wait_until(fun() -> {ok, #{outstanding_leases := N}} = bufkit:pool_stats(P), N =:= 0 end).

wait_until(F) -> wait_until(F, 100).
wait_until(F, 0) -> ?assert(F());
wait_until(F, N) -> case F() of true -> ok; false -> timer:sleep(10), wait_until(F, N - 1) end.

%% An archive read in place: entries found by name and read whole, from any process; hostile
%% archives refused at open; the read mode (pread) gives a clean error once the file has changed.
archive_read_in_place_test() ->
    in_dir(fun(Dir) ->
        Zip = filename:join(Dir, "app.apk"),
        Js = binary:copy(<<"console.log('hi');\n">>, 30000),
        {ok, _} = zip:create(Zip, [{"assets/app.js", Js}, {"assets/logo.png", <<137, "PNG">>}, {"readme.txt", <<"hi">>}]),
        {ok, A} = bufkit:archive_open(Zip),
        Entries = bufkit:archive_entries(A),
        ?assertEqual([{0, <<"assets/app.js">>, byte_size(Js), file}, {1, <<"assets/logo.png">>, 4, file}, {2, <<"readme.txt">>, 2, file}],
                     Entries),
        %% Each index is what archive_read/2 takes, and reads what the name reads.
        [?assertEqual(bufkit:archive_read(A, Name), bufkit:archive_read(A, Index)) || {Index, Name, _, _} <- Entries],
        ?assertEqual({ok, Js}, bufkit:archive_read(A, "assets/app.js")),   % 570 KB: a dirty scheduler
        ?assertEqual({ok, <<"hi">>}, bufkit:archive_read(A, <<"readme.txt">>)),
        ?assertEqual({error, not_found}, bufkit:archive_read(A, "nothing")),
        ?assertEqual({error, out_of_range}, bufkit:archive_read(A, 3)),
        Parent = self(),
        [spawn(fun() -> Parent ! {read, bufkit:archive_read(A, "assets/logo.png")} end) || _ <- lists:seq(1, 4)],
        [receive {read, R} -> ?assertEqual({ok, <<137, "PNG">>}, R) end || _ <- lists:seq(1, 4)],
        ok = file:write_file(Zip, <<"changed">>),
        ?assertMatch({error, _}, bufkit:archive_read(A, "readme.txt")),
        ?assertMatch({error, _}, bufkit:archive_read(A, "assets/app.js")),
        ?assertEqual({error, archive_malformed}, bufkit:archive_open(Zip)),
        {ok, _} = zip:create(Zip, [{"../evil", <<"x">>}]),
        ?assertEqual({error, unsafe_name}, bufkit:archive_open(Zip, #{holding => map})),
        ?assertEqual({error, invalid_argument}, bufkit:archive_open(Zip, #{holding => carved})),
        ?assertEqual({error, io_error}, bufkit:archive_open("/nonexistent.apk"))
    end).

%% archive_close/1: later calls say closed, closing twice is fine, calls running meanwhile finish;
%% a binary over a mapped archive's stored entry stays valid after the close (the archive is freed
%% when the last such binary is collected).
archive_close_test() ->
    in_dir(fun(Dir) ->
        Zip = filename:join(Dir, "c.apk"),
        Js = binary:copy(<<"console.log('hi');\n">>, 30000),
        {ok, _} = zip:create(Zip, [{"assets/app.js", Js}, {"stored.bin", <<"stored bytes">>}], [{uncompress, [".bin"]}]),
        {ok, A} = bufkit:archive_open(Zip),
        Parent = self(),
        Readers = [spawn(fun() -> Parent ! {read, [bufkit:archive_read(A, "assets/app.js") || _ <- lists:seq(1, 20)]} end)
                   || _ <- lists:seq(1, 4)],
        ?assertEqual(ok, bufkit:archive_close(A)),
        [receive {read, Rs} -> [?assert(R =:= {ok, Js} orelse R =:= {error, closed}) || R <- Rs] end || _ <- Readers],
        ?assertEqual({error, closed}, bufkit:archive_read(A, "assets/app.js")),
        ?assertEqual({error, closed}, bufkit:archive_find(A, "assets/app.js")),
        ?assertEqual({error, closed}, bufkit:archive_entries(A)),
        ?assertEqual({error, closed}, bufkit:archive_verify(A)),
        ?assertEqual({error, closed}, bufkit:archive_list(A)),
        ?assertEqual(ok, bufkit:archive_close(A)),
        {ok, M} = bufkit:archive_open(Zip, #{holding => map}),
        {ok, View} = bufkit:archive_read(M, "stored.bin"),
        ok = bufkit:archive_close(M),
        ?assertEqual({error, closed}, bufkit:archive_read(M, "stored.bin")),
        erlang:garbage_collect(),
        ?assertEqual(<<"stored bytes">>, binary:copy(View)),
        ?assertError(badarg, bufkit:archive_close(make_ref()))
    end).

%% Issue 26: modification times restored by default (zip:create records the files' DOS time:
%% here, of a file dated 2020; whole minutes, as zip:create writes the seconds where DOS wants
%% half of them), the time of the extraction with `no_mtime'.
extract_mtime_test() ->
    in_dir(fun(Dir) ->
        Src = filename:join(Dir, "old.txt"),
        ok = file:write_file(Src, <<"old">>),
        ok = file:change_time(Src, {{2020, 6, 15}, {13, 45, 0}}),
        Zip = filename:join(Dir, "t.zip"),
        {ok, _} = zip:create(Zip, ["old.txt"], [{cwd, Dir}]),
        {ok, _} = bufkit:extract(Zip, filename:join(Dir, "restored"), #{}),
        {ok, Info} = file:read_file_info(filename:join([Dir, "restored", "old.txt"])),
        ?assertEqual({{2020, 6, 15}, {13, 45, 0}}, element(6, Info)),
        {ok, _} = bufkit:extract(Zip, filename:join(Dir, "now"), #{no_mtime => true}),
        {ok, Now} = file:read_file_info(filename:join([Dir, "now", "old.txt"])),
        ?assertNotEqual({{2020, 6, 15}, {13, 45, 0}}, element(6, Now))
    end).

%% Issue 26: verify without writing (unzip -t): ok on a good archive; an entry whose data is damaged
%% reported with its reason, the count and its index; nothing in the VM is blocked meanwhile.
archive_verify_test() ->
    in_dir(fun(Dir) ->
        Zip = filename:join(Dir, "v.apk"),
        Js = binary:copy(<<"console.log('hi');\n">>, 30000),
        {ok, _} = zip:create(Zip, [{"readme.txt", <<"hi">>}, {"assets/app.js", Js}]),
        {ok, A} = bufkit:archive_open(Zip),
        ?assertEqual(ok, bufkit:archive_verify(A)),
        ?assertEqual(ok, bufkit:archive_verify(A, #{threads => 1})),
        ?assertEqual({error, invalid_argument}, bufkit:archive_verify(A, #{threads => -1})),
        {ok, Bytes} = file:read_file(Zip),
        %% The second entry's deflated data, damaged in its middle (after readme.txt's header and data).
        Cut = 30 + 10 + 2 + 30 + 13 + 40,
        <<Before:Cut/binary, Byte, After/binary>> = Bytes,
        Damaged = filename:join(Dir, "damaged.apk"),
        ok = file:write_file(Damaged, <<Before/binary, (Byte bxor 16#55), After/binary>>),
        {ok, D} = bufkit:archive_open(Damaged),
        ?assertMatch({error, {_, 1, 1}}, bufkit:archive_verify(D, #{threads => 2})),
        {error, {Reason, _, _}} = bufkit:archive_verify(D),
        ?assert(lists:member(Reason, [crc_mismatch, corrupt, checksum, size_mismatch, truncated, archive_malformed]))
    end).

%% Issue 26: Deflate64, bzip2, LZMA, Zstandard and XZ, from the fixture the Rust, C and Java tests
%% read too (the same text once per method): read whole (from the file and mapped), verified and
%% extracted, all equal.
every_compression_method_test() ->
    Fixture = methods_zip(),
    ?assert(is_list(Fixture)),
    Names = ["deflate64.txt", "bzip2.txt", "lzma.txt", "zstd.txt", "xz.txt"],
    in_dir(fun(Dir) ->
        Out = filename:join(Dir, "out"),
        {ok, Report} = bufkit:extract(Fixture, Out, #{}),
        ?assertEqual(5, maps:get(files, Report)),
        {ok, A0} = bufkit:archive_open(Fixture),
        {ok, First} = bufkit:archive_read(A0, hd(Names)),
        ?assertEqual(19744, byte_size(First)),
        lists:foreach(
          fun(Holding) ->
                  {ok, A} = bufkit:archive_open(Fixture, #{holding => Holding}),
                  [begin
                       ?assertEqual({ok, First}, bufkit:archive_read(A, Name)),
                       ?assertEqual({ok, First}, file:read_file(filename:join(Out, Name)))
                   end || Name <- Names],
                  ?assertEqual(ok, bufkit:archive_verify(A))
          end, [read, map])
    end).

%% A local header that disagrees with its central record: refused at open by default, with
%% extraction's reason; with `local_headers => on_first_read', the archive opens and only that
%% entry's reads fail.
archive_local_headers_test() ->
    in_dir(fun(Dir) ->
        Zip = filename:join(Dir, "local.apk"),
        {ok, _} = zip:create(Zip, [{"a.js", <<"let a;">>}, {"readme.txt", <<"hi">>}]),
        {ok, Bytes} = file:read_file(Zip),
        {At, _} = binary:match(Bytes, <<"readme.txt">>),   % the local header's name comes first
        <<Before:At/binary, _, After/binary>> = Bytes,
        ok = file:write_file(Zip, <<Before/binary, $R, After/binary>>),
        ?assertMatch({error, {archive_malformed, _}}, bufkit:extract(Zip, filename:join(Dir, "out"), #{})),
        [begin
             ?assertEqual({error, archive_malformed}, bufkit:archive_open(Zip, #{holding => H})),
             {ok, A} = bufkit:archive_open(Zip, #{holding => H, local_headers => on_first_read}),
             ?assertEqual({error, archive_malformed}, bufkit:archive_read(A, "readme.txt")),
             ?assertEqual({error, archive_malformed}, bufkit:archive_read(A, "readme.txt")),
             ?assertEqual({ok, <<"let a;">>}, bufkit:archive_read(A, "a.js"))
         end || H <- [read, map]],
        ?assertEqual({error, invalid_argument}, bufkit:archive_open(Zip, #{local_headers => sometimes}))
    end).

%% Listing by pattern; stored entries read as binaries over the archive's own bytes, which keep
%% the archive alive after the last reference to its handle is gone.
archive_list_and_stored_binaries_test() ->
    in_dir(fun(Dir) ->
        Zip = filename:join(Dir, "stored.apk"),
        Png = binary:copy(<<137, "PNG", 1, 2, 3>>, 1000),
        {ok, _} = zip:create(Zip, [{"assets/app.js", <<"let a;">>}, {"assets/ui/b.js", <<"let b;">>},
                                   {"res/logo.png", Png}], [{uncompress, all}]),
        Bins = [begin
                    {ok, A} = bufkit:archive_open(Zip, #{holding => Holding}),
                    ?assertEqual([<<"assets/app.js">>, <<"assets/ui/b.js">>, <<"res/logo.png">>], bufkit:archive_list(A)),
                    ?assertEqual([<<"assets/app.js">>, <<"assets/ui/b.js">>], bufkit:archive_list(A, "assets/*.js")),
                    ?assertEqual([<<"res/logo.png">>], bufkit:archive_list(A, [<<"*.p">>, "ng"])),
                    ?assertEqual([], bufkit:archive_list(A, "nothing*")),
                    {ok, Bin} = bufkit:archive_read(A, "res/logo.png"),
                    ?assertEqual(Png, Bin),
                    Bin
                end || Holding <- [read, map]],
        erlang:garbage_collect(),
        [?assertEqual(Png, B) || B <- Bins]   % the handles are gone; the binaries still hold the archive
    end).

%% Progress is rate-limited by default (a message per entry flooded the mailbox): at most one per
%% 50 ms, and always the last one, which nothing follows.
extract_progress_is_rate_limited_test() ->
    in_dir(fun(Dir) ->
        Zip = filename:join(Dir, "many.zip"),
        Files = [{"f" ++ integer_to_list(I) ++ ".txt", integer_to_binary(I)} || I <- lists:seq(1, 2000)],
        {ok, _} = zip:create(Zip, Files),
        {ok, #{files := 2000}} = bufkit:extract(Zip, filename:join(Dir, "out"), #{threads => 2, progress => self()}),
        Progress = lists:reverse(receive_all([])),
        ?assert(length(Progress) >= 1),
        ?assert(length(Progress) < 200),
        ?assertMatch({bufkit_extract_progress, 2000, 2000, _, _}, lists:last(Progress)),
        ?assertEqual({error, {invalid_argument, <<>>}},
                     bufkit:extract(Zip, filename:join(Dir, "out2"), #{progress => self(), progress_interval_ms => -1}))
    end).

receive_all(Acc) ->
    receive {bufkit_extract_progress, _, _, _, _} = M -> receive_all([M | Acc])
    after 100 -> Acc
    end.

%% Issue 28: any slice of an entry, by index or name, equals the entry's bytes; the end reads
%% short, past it is out_of_range; checkpoints export and import, and altered ones are refused.
archive_read_at_test() ->
    in_dir(fun(Dir) ->
        Zip = filename:join(Dir, "logs.zip"),
        Log = iolist_to_binary([io_lib:format("2026-12-02 GET /item/~b ~b~n", [I * 7919 rem 5000, I rem 7]) || I <- lists:seq(1, 90000)]),
        Raw = binary:copy(<<0, 1, 2, 3, 255>>, 40000),
        {ok, _} = zip:create(Zip, [{"log.txt", Log}, {"raw.bin", Raw}], [{uncompress, [".bin"]}]),
        {ok, A} = bufkit:archive_open(Zip),
        Size = byte_size(Log),
        Check = fun(Entry, Data, Offset, Length) ->
            Want = binary:part(Data, Offset, min(Length, byte_size(Data) - Offset)),
            ?assertEqual({ok, Want}, bufkit:archive_read_at(A, Entry, Offset, Length))
        end,
        rand:seed(exsss, {28, 28, 28}),
        [Check(<<"log.txt">>, Log, rand:uniform(Size) - 1, L) || L <- [1, 100, 5000, 70000], _ <- lists:seq(1, 8)],
        [Check(<<"raw.bin">>, Raw, rand:uniform(byte_size(Raw)) - 1, L) || L <- [1, 5000], _ <- lists:seq(1, 4)],
        Check(<<"log.txt">>, Log, Size - 3, 10),
        ?assertEqual({ok, <<>>}, bufkit:archive_read_at(A, <<"log.txt">>, Size, 10)),
        ?assertEqual({error, out_of_range}, bufkit:archive_read_at(A, <<"log.txt">>, Size + 1, 10)),
        ?assertEqual({error, not_found}, bufkit:archive_read_at(A, <<"nope">>, 0, 10)),
        {ok, 0} = bufkit:archive_find(A, <<"log.txt">>),
        {ok, Checkpoints} = bufkit:archive_checkpoints_export(A, 0),
        ?assertEqual({error, invalid_argument}, bufkit:archive_checkpoints_export(A, 1)),
        {ok, B} = bufkit:archive_open(Zip, #{holding => map}),
        Altered = <<(binary:part(Checkpoints, 0, 100))/binary, 0, (binary:part(Checkpoints, 101, byte_size(Checkpoints) - 101))/binary>>,
        ?assertEqual({error, checkpoints_refused}, bufkit:archive_checkpoints_import(B, 0, Altered)),
        ?assertEqual({error, checkpoints_refused}, bufkit:archive_checkpoints_import(B, 1, Checkpoints)),
        ok = bufkit:archive_checkpoints_import(B, 0, Checkpoints),
        ?assertEqual({ok, binary:part(Log, 1000000, 50)}, bufkit:archive_read_at(B, 0, 1000000, 50)),
        %% No budget: no checkpoints, and slices are still right (from the entry's start).
        ok = bufkit:archive_set_checkpoint_limits(B, 65536, 0),
        ?assertEqual({ok, binary:part(Log, 2000000, 50)}, bufkit:archive_read_at(B, 0, 2000000, 50)),
        ?assertError(badarg, bufkit:archive_set_checkpoint_limits(B, -1, 0)),
        ok = bufkit:archive_close(A),
        ?assertEqual({error, closed}, bufkit:archive_read_at(A, 0, 0, 1)),
        ok = bufkit:archive_close(B)
    end).

%% The options are parsed by code generated from bk_extract_options: a value of the wrong type or
%% range is invalid_argument, with nothing written; each option's value reaches the library.
extract_options_are_checked_test() ->
    in_dir(fun(Dir) ->
        Zip = filename:join(Dir, "o.zip"),
        {ok, _} = zip:create(Zip, [{"a.txt", <<"a">>}, {"b/c.txt", <<"c">>}]),
        Dest = filename:join(Dir, "out"),
        Bad = [#{strict => yes}, #{mode => sideways}, #{threads => -1}, #{quota => 1.5}, #{max_ratio => -1},
               #{max_ratio => nan}, #{progress_interval_ms => -5}, #{only => [<<"a", 0, "b">>]}, #{colour => blue}],
        [?assertEqual({error, {invalid_argument, <<>>}}, bufkit:extract(Zip, Dest, B)) || B <- Bad],
        ?assertEqual({ok, ["o.zip"]}, file:list_dir(Dir)),
        {ok, #{files := 1, skipped := 1}} =
            bufkit:extract(Zip, Dest, #{only => ["b/"], threads => 1, quota => 10, max_ratio => 100, strict => true,
                                        fold_case => true, no_mtime => false, durable => true, mode => create}),
        ?assertMatch({error, {limit_exceeded, _}}, bufkit:extract(Zip, filename:join(Dir, "q"), #{quota => 1}))
    end).

extract_hostile_archive_leaves_nothing_test() ->
    in_dir(fun(Dir) ->
        Zip = filename:join(Dir, "evil.zip"),
        {ok, _} = zip:create(Zip, [{"ok.txt", <<"fine">>}, {"../evil.txt", <<"escape">>}]),
        Dest = filename:join(Dir, "out"),
        ?assertEqual({error, {unsafe_name, <<"../evil.txt">>}}, bufkit:extract(Zip, Dest, #{})),
        ?assertEqual({ok, ["evil.zip"]}, file:list_dir(Dir)),
        Small = filename:join(Dir, "q.zip"),
        {ok, _} = zip:create(Small, [{"ok.txt", <<"fine">>}]),
        ?assertEqual({error, {limit_exceeded, <<"ok.txt">>}}, bufkit:extract(Small, Dest, #{quota => 2})),
        ?assertEqual({error, {enoent, <<"/nonexistent.zip">>}}, bufkit:extract("/nonexistent.zip", Dest, #{})),
        ?assertEqual({error, {invalid_argument, <<>>}}, bufkit:extract(Zip, Dest, #{colour => blue}))
    end).

%% Truncating the archive while bufkit:extract/3 runs: a clean error or the archive as it was,
%% never a SIGBUS that takes the whole VM down (the archive used to be memory-mapped).
archive_truncated_during_extraction_leaves_the_vm_alive_test() ->
    in_dir(fun(Dir) ->
        Zip = filename:join(Dir, "big.zip"),
        Files = [{"f" ++ integer_to_list(I) ++ ".bin", binary:copy(<<I>>, 512 * 1024)} || I <- lists:seq(1, 16)],
        {ok, {"mem", Bytes}} = zip:create("mem", Files, [memory, {compress, []}]),
        Outcomes = [begin
                        ok = file:write_file(Zip, Bytes),
                        Dest = filename:join(Dir, "out" ++ integer_to_list(Round)),
                        Cutter = spawn(fun() ->
                                           timer:sleep(Round),
                                           {ok, F} = file:open(Zip, [read, write, raw]),
                                           {ok, 1000} = file:position(F, 1000),
                                           ok = file:truncate(F),
                                           ok = file:close(F)
                                       end),
                        Result = bufkit:extract(Zip, Dest, #{threads => 2}),
                        Ref = monitor(process, Cutter),
                        receive {'DOWN', Ref, process, Cutter, _} -> ok end,
                        case Result of
                            {ok, #{files := 16}} -> whole;
                            {error, {Kind, _}} when Kind =:= io_error; Kind =:= archive_malformed ->
                                ?assertNot(filelib:is_dir(Dest)),
                                error
                        end
                    end || Round <- lists:seq(0, 9)],
        ?assertEqual(10, length(Outcomes))
    end).

%% Killing the process that called bufkit:extract/3 cancels the extraction: the destination is
%% not created seconds later behind the caller's back, and no staging is left.
killing_the_caller_cancels_the_extraction_test_() ->
    {timeout, 60, fun killing_the_caller_cancels_the_extraction/0}.

killing_the_caller_cancels_the_extraction() ->
    in_dir(fun(Dir) ->
        Zip = filename:join(Dir, "many.zip"),
        Files = [{"d" ++ integer_to_list(I rem 50) ++ "/f" ++ integer_to_list(I) ++ ".txt", integer_to_binary(I)}
                 || I <- lists:seq(1, 5000)],
        {ok, _} = zip:create(Zip, Files),
        Dest = filename:join(Dir, "out"),
        Start = erlang:monotonic_time(millisecond),
        Test = self(),
        %% Killed at its first progress report, so surely mid-way (a fixed sleep raced a fast machine,
        %% or a loaded one that woke the test late).
        {Caller, Ref} = spawn_monitor(fun() -> bufkit:extract(Zip, Dest, #{threads => 1, progress => Test,
                                                                              progress_interval_ms => 0}) end),
        receive {bufkit_extract_progress, Done, Total, _, _} -> ?assert(Done < Total) after 30000 -> ?assert(false) end,
        exit(Caller, kill),
        receive {'DOWN', Ref, process, Caller, killed} -> ok end,
        Waited = erlang:monotonic_time(millisecond) - Start,
        %% Whatever the VM does with a killed process inside a dirty NIF, the extraction stops: give
        %% it as long again as it had, then nothing may have appeared.
        timer:sleep(max(500, Waited)),
        {ok, Left} = file:list_dir(Dir),
        ?assertEqual(["many.zip"], Left)
    end).

%% A .jmod-style archive (4 bytes before the zip part) extracts; `strict' refuses it.
prepended_data_is_read_past_unless_strict_test() ->
    in_dir(fun(Dir) ->
        {ok, {_, Zip}} = zip:create("mem", [{"a.txt", <<"in a jmod">>}], [memory]),
        Jmod = filename:join(Dir, "m.jmod"),
        ok = file:write_file(Jmod, <<"JM", 1, 0, Zip/binary>>),
        {ok, Report} = bufkit:extract(Jmod, filename:join(Dir, "out"), #{}),
        %% Every field of bk_extract_report, the prepended header among them.
        ?assertEqual(#{files => 1, directories => 0, bytes => 9, skipped => 0, reused => 0, prepended => 4, appended => 0,
                       symlinks_skipped => 0}, Report),
        {ok, <<"in a jmod">>} = file:read_file(filename:join([Dir, "out", "a.txt"])),
        ?assertMatch({error, {archive_malformed, _}}, bufkit:extract(Jmod, filename:join(Dir, "strict"), #{strict => true})),
        %% fold_case: names that differ only in case extract here (a case-sensitive file system), and
        %% are refused when asked to fold case.
        Twins = filename:join(Dir, "twins.zip"),
        {ok, _} = zip:create(Twins, [{"Readme.txt", <<"one">>}, {"README.txt", <<"two">>}]),
        {ok, #{files := 2}} = bufkit:extract(Twins, filename:join(Dir, "twins"), #{}),
        ?assertMatch({error, {unsafe_name, _}}, bufkit:extract(Twins, filename:join(Dir, "folded"), #{fold_case => true})),
        ?assertNot(filelib:is_dir(filename:join(Dir, "folded"))),
        %% portable_names: a name Windows reads as a device is refused, naming it; without the
        %% option it extracts here.
        Device = filename:join(Dir, "device.zip"),
        {ok, _} = zip:create(Device, [{"ok.txt", <<"fine">>}, {"assets/con.txt", <<"device">>}]),
        ?assertEqual({error, {unsafe_name, <<"assets/con.txt">>}},
                     bufkit:extract(Device, filename:join(Dir, "portable"), #{portable_names => true})),
        ?assertNot(filelib:is_dir(filename:join(Dir, "portable"))),
        {ok, #{files := 2}} = bufkit:extract(Device, filename:join(Dir, "device"), #{portable_names => false})
    end).

%% A stream fed in pieces: exact bytes used, the total once done, the output handed over; a
%% truncated stream, a wrong size and a flipped checksum have their reasons; reset reuses it.
inflate_stream_fed_in_pieces_test_() ->
    Data = iolist_to_binary([integer_to_binary(I) || I <- lists:seq(1, 30000)]),
    Z = zlib:compress(Data),
    Input = <<Z/binary, "NEXT OBJECT">>,
    [{integer_to_list(Stride), fun() ->
        {ok, S} = bufkit:inflate_stream_new(zlib, byte_size(Data)),
        {Used, Out} = feed_in_strides(S, Input, Stride, 0),
        ?assertEqual(byte_size(Z), Used),
        ?assertEqual(Data, Out),
        ?assertEqual({error, invalid_argument}, bufkit:inflate_stream_feed(S, <<"more">>)),
        ?assertEqual(ok, bufkit:inflate_stream_finish(S))
     end} || Stride <- [1, 7, 4096, 1 bsl 20]].

feed_in_strides(S, Input, Stride, At) ->
    N = min(Stride, byte_size(Input) - At),
    case bufkit:inflate_stream_feed(S, binary:part(Input, At, N)) of
        {more, N} -> feed_in_strides(S, Input, Stride, At + N);
        {done, Used, Consumed, Out} -> Consumed = At + Used, {Consumed, Out}
    end.

inflate_stream_failures_test() ->
    Data = binary:copy(<<"0123456789">>, 5000),
    Z = zlib:compress(Data),
    {ok, S} = bufkit:inflate_stream_new(zlib, byte_size(Data), 100),
    {more, _} = bufkit:inflate_stream_feed(S, binary:part(Z, 0, 10)),
    ?assertEqual({error, truncated}, bufkit:inflate_stream_finish(S)),
    ok = bufkit:inflate_stream_reset(S, byte_size(Data) - 1, 0),
    ?assertEqual({error, size_mismatch}, bufkit:inflate_stream_feed(S, Z)),
    Flipped = <<(binary:part(Z, 0, byte_size(Z) - 1))/binary, (binary:last(Z) bxor 1)>>,
    ok = bufkit:inflate_stream_reset(S, byte_size(Data), 0),
    ?assertEqual({error, checksum}, bufkit:inflate_stream_feed(S, Flipped)),
    ok = bufkit:inflate_stream_reset(S, byte_size(Data), 0),
    ?assertMatch({done, _, _, Data}, bufkit:inflate_stream_feed(S, Z)),
    Raw = zlib:zip(Data),
    {ok, R} = bufkit:inflate_stream_new(raw, byte_size(Data)),
    RawLen = byte_size(Raw),
    ?assertEqual({done, RawLen, RawLen, Data}, bufkit:inflate_stream_feed(R, <<Raw/binary, 0, 0>>)),
    ?assertEqual({error, invalid_argument}, bufkit:inflate_stream_new(gzip, 10)),
    ?assertEqual({error, invalid_argument}, bufkit:inflate_stream_feed(S, not_a_binary)),
    ?assertError(badarg, bufkit_nif:inflate_stream_feed(make_ref(), <<1>>)).

%% A piece of 256 KiB and more is fed on a dirty scheduler; the output is the same.
inflate_stream_large_piece_test() ->
    Data = crypto:strong_rand_bytes(1 bsl 20),
    Z = zlib:compress(Data),
    {ok, S} = bufkit:inflate_stream_new(zlib, byte_size(Data)),
    ZLen = byte_size(Z),
    ?assertEqual({done, ZLen, ZLen, Data}, bufkit:inflate_stream_feed(S, Z)).

%% Every option of every function that takes an options map, given each kind of wrong value:
%% always an error tuple, never an exception (a string where a list of patterns belongs included).
wrong_option_values_are_errors_never_exceptions_test() ->
    Wrong = [-1, 1.5, "assets/", <<"bin">>, not_an_option_value, [a], #{}, {t}, make_ref(), 1 bsl 70],
    Zip = methods_zip(),
    in_dir(fun(Dir) -> wrong_option_values(Wrong, Zip, Dir) end).

wrong_option_values(Wrong, Zip, Dir) ->
    {ok, Archive} = bufkit:archive_open(Zip),
    Calls =
        [{extract, K, fun(W) -> bufkit:extract(Zip, filename:join(Dir, "out"), #{K => W}) end}
         || K <- [mode, threads, only, strict, skip_symlinks, quota, max_ratio, durable, no_mtime,
                  incremental, fold_case, progress, progress_interval_ms]] ++
        [{buffer_new, K, fun(W) -> bufkit:buffer_new(#{K => W}) end}
         || K <- [growth, factor, step, chunk_size, max_capacity, initial_capacity]] ++
        [{pool_new, K, fun(W) -> bufkit:pool_new(#{K => W}) end}
         || K <- [min_class_size, max_class_size, max_retained_bytes, max_buffers_per_class,
                  thread_cache_buffers, zero_on_acquire, decay_after_ms]] ++
        [{archive_open, K, fun(W) -> bufkit:archive_open(Zip, #{K => W}) end} || K <- [holding, local_headers]] ++
        [{archive_verify, threads, fun(W) -> bufkit:archive_verify(Archive, #{threads => W}) end},
         {extract, archive_path, fun(W) -> bufkit:extract(W, filename:join(Dir, "out"), #{}) end},
         {archive_open, path, fun(W) -> bufkit:archive_open(W, #{}) end}],
    Raised = [{Function, Key, W, Class, Reason}
              || {Function, Key, Call} <- Calls, W <- Wrong,
                 {raised, Class, Reason} <- [try Call(W) of _ -> returned catch C:R -> {raised, C, R} end]],
    Accepted = [{Function, Key} || {Function, Key, Call} <- Calls, Key =/= archive_path, Key =/= path,
                                   try Call("assets/") of {ok, _} -> true; ok -> true; _ -> false catch _:_ -> false end],
    ok = bufkit:archive_close(Archive),
    ?assertEqual([], Raised),
    %% A lone string is not a valid value for any option either.
    ?assertEqual([], Accepted),
    ?assertEqual({error, {invalid_argument, <<>>}},
                 bufkit:extract(Zip, filename:join(Dir, "out2"), #{only => "assets/"})).

%% A streaming reader: an entry front to back in pieces of any size equals the whole entry, after
%% the archive is closed too; a damaged entry's CRC failure comes at the end, and on every read
%% after it; a closed reader says so.
archive_reader_streams_an_entry_test() ->
    in_dir(fun(Dir) ->
        Zip = filename:join(Dir, "stream.zip"),
        Log = iolist_to_binary([io_lib:format("2026-12-03 GET /item/~b ~b~n", [I * 7919 rem 5000, I rem 7]) || I <- lists:seq(1, 60000)]),
        {ok, _} = zip:create(Zip, [{"log.txt", Log}, {"raw.bin", binary:copy(<<7>>, 3000)}], [{uncompress, [".bin"]}]),
        {ok, A} = bufkit:archive_open(Zip),
        ReadAll = fun(Reader, Max) ->
            Loop = fun Loop(Acc) ->
                case bufkit:archive_reader_read(Reader, Max) of
                    {ok, Bin} -> ?assert(byte_size(Bin) =< Max), Loop([Acc, Bin]);
                    eof -> {ok, iolist_to_binary(Acc)};
                    Error -> Error
                end
            end,
            Loop([])
        end,
        [begin
             {ok, R} = bufkit:archive_reader_open(A, <<"log.txt">>),
             ?assertEqual({ok, Log}, ReadAll(R, Max)),
             ?assertEqual(eof, bufkit:archive_reader_read(R, Max)),
             ok = bufkit:archive_reader_close(R)
         end || Max <- [1000, 65536, 1 bsl 20]],
        {ok, Raw} = bufkit:archive_reader_open(A, 1),
        ok = bufkit:archive_close(A),
        ?assertEqual({ok, binary:copy(<<7>>, 3000)}, ReadAll(Raw, 4096)),
        ok = bufkit:archive_reader_close(Raw),
        ?assertEqual({error, closed}, bufkit:archive_reader_read(Raw, 10)),
        ?assertEqual({error, invalid_argument}, bufkit:archive_reader_read(Raw, 0)),
        %% The CRC-32 in both headers of log.txt made wrong: the bytes come, then the failure, twice.
        {ok, Bytes} = file:read_file(Zip),
        Crc = erlang:crc32(Log),
        Bad = binary:replace(Bytes, <<Crc:32/little>>, <<(Crc bxor 1):32/little>>, [global]),
        BadZip = filename:join(Dir, "stream-bad.zip"),
        ok = file:write_file(BadZip, Bad),
        {ok, B} = bufkit:archive_open(BadZip),
        {ok, R2} = bufkit:archive_reader_open(B, <<"log.txt">>),
        ?assertEqual({error, crc_mismatch}, ReadAll(R2, 65536)),
        ?assertEqual({error, crc_mismatch}, bufkit:archive_reader_read(R2, 100)),
        ok = bufkit:archive_close(B)
    end).

%% Inflating on several cores changes nothing but the time: with `parallel_inflate => always'
%% (extraction) and `archive_set_parallel_inflate(A, always)' (whole reads and readers), the same
%% bytes as `never'; a flipped byte fails the same way, leaving nothing.
parallel_inflate_changes_nothing_but_the_time_test_() ->
    {timeout, 120, fun parallel_inflate_changes_nothing_but_the_time/0}.

parallel_inflate_changes_nothing_but_the_time() ->
    in_dir(fun(Dir) ->
        Zip = filename:join(Dir, "logs.zip"),
        Log = iolist_to_binary([io_lib:format("~8..0b GET /item/~b ~b~n", [I, I * 7919 rem 5003, I rem 7])
                                || I <- lists:seq(1, 260000)]),
        ?assert(byte_size(Log) > 6 bsl 20),
        {ok, _} = zip:create(Zip, [{"log.txt", Log}]),
        {ok, A} = bufkit:archive_open(Zip),
        ?assertError(badarg, bufkit_nif:archive_set_parallel_inflate(A, sometimes)),
        ?assertEqual({error, invalid_argument}, bufkit:archive_set_parallel_inflate(A, sometimes)),
        ReadAll = fun(Reader) ->
            Loop = fun Loop(Acc) ->
                case bufkit:archive_reader_read(Reader, 100000) of
                    {ok, Bin} -> Loop([Acc, Bin]);
                    eof -> {ok, iolist_to_binary(Acc)};
                    Error -> Error
                end
            end,
            Loop([])
        end,
        [begin
             ok = bufkit:archive_set_parallel_inflate(A, Mode),
             ?assertEqual({ok, Log}, bufkit:archive_read(A, 0)),
             {ok, R} = bufkit:archive_reader_open(A, 0),
             ?assertEqual({ok, Log}, ReadAll(R)),
             ok = bufkit:archive_reader_close(R),
             Dest = filename:join(Dir, "out-" ++ atom_to_list(Mode)),
             ?assertMatch({ok, #{files := 1}}, bufkit:extract(Zip, Dest, #{parallel_inflate => Mode, threads => 4})),
             ?assertEqual({ok, Log}, file:read_file(filename:join(Dest, "log.txt")))
         end || Mode <- [never, always, auto]],
        ok = bufkit:archive_close(A),
        ?assertEqual({error, {invalid_argument, <<>>}},
                     bufkit:extract(Zip, filename:join(Dir, "odd"), #{parallel_inflate => sometimes})),
        {ok, Bytes} = file:read_file(Zip),
        Half = byte_size(Bytes) div 2,
        <<Head:Half/binary, Byte, Tail/binary>> = Bytes,
        Bad = filename:join(Dir, "bad.zip"),
        ok = file:write_file(Bad, <<Head/binary, (Byte bxor 16#5a), Tail/binary>>),
        Outcomes = [begin
                        Dest = filename:join(Dir, "bad-" ++ atom_to_list(Mode)),
                        {error, {Reason, _}} = bufkit:extract(Bad, Dest, #{parallel_inflate => Mode}),
                        ?assertNot(filelib:is_dir(Dest)),
                        {ok, B} = bufkit:archive_open(Bad),
                        ok = bufkit:archive_set_parallel_inflate(B, Mode),
                        ?assertEqual({error, Reason}, bufkit:archive_read(B, 0)),
                        {ok, R} = bufkit:archive_reader_open(B, 0),
                        ?assertEqual({error, Reason}, ReadAll(R)),
                        ok = bufkit:archive_close(B),
                        Reason
                    end || Mode <- [always, never]],
        ?assertMatch([Same, Same], Outcomes)
    end).

%% An archive fed in pieces extracts as its file does; one cut short is refused and leaves
%% nothing; a spent stream says so; the pieces may be iolists.
extract_stream_test() ->
    in_dir(fun(Dir) ->
        Zip = filename:join(Dir, "fed.zip"),
        Body = binary:copy(<<"function f() { return 1; }\n">>, 4000),
        {ok, _} = zip:create(Zip, [{"assets/app.js", Body}, {"readme.txt", <<"hi">>}]),
        {ok, Bytes} = file:read_file(Zip),
        Pieces = fun Pieces(<<Piece:1000/binary, Rest/binary>>) -> [Piece | Pieces(Rest)];
                     Pieces(Rest) -> [Rest] end,
        Dest = filename:join(Dir, "fed"),
        {ok, S} = bufkit:extract_stream_new(Dest),
        [ok = bufkit:extract_stream_feed(S, [P]) || P <- Pieces(Bytes)],
        ?assertMatch({ok, #{files := 2}}, bufkit:extract_stream_finish(S, Dest, #{threads => 2})),
        ?assertEqual({ok, Body}, file:read_file(filename:join(Dest, "assets/app.js"))),
        ?assertEqual({error, invalid_argument}, bufkit:extract_stream_feed(S, <<"more">>)),
        ?assertEqual({error, {invalid_argument, <<>>}}, bufkit:extract_stream_finish(S, Dest, #{})),
        Cut = filename:join(Dir, "cut"),
        {ok, C} = bufkit:extract_stream_new(Cut),
        ok = bufkit:extract_stream_feed(C, binary:part(Bytes, 0, byte_size(Bytes) - 10)),
        ?assertMatch({error, {archive_malformed, _}}, bufkit:extract_stream_finish(C, Cut, #{})),
        ?assertNot(filelib:is_file(Cut)),
        ?assertEqual({error, {invalid_argument, <<>>}}, bufkit:extract_stream_finish(C, Cut, #{no_such_option => 1})),
        ?assertEqual({error, invalid_argument}, bufkit:extract_stream_new(42)),
        %% Nothing but the two trees and the archive: the spool had no name.
        ?assertEqual(lists:sort(["fed", "fed.zip"]), lists:sort([F || F <- element(2, file:list_dir(Dir)), lists:member(F, ["fed", "fed.zip", "cut"]) orelse lists:prefix(".", F)]))
    end).
