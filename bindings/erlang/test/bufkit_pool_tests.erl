%% The buffer pool and its leases: lending, counting, caps, garbage collection, sharing, and
%% leases read, written and viewed from Erlang.
-module(bufkit_pool_tests).
-include_lib("eunit/include/eunit.hrl").

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
