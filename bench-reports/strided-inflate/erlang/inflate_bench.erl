%% Per-object inflate cost from Erlang over a real pack: the zlib module at its best (one port,
%% inflateReset per object, and handed the exact compressed bytes, which only the walk can know)
%% against bufkit:inflate_at/3 (offset into the whole pack binary) and inflate_batch/2.
%% Usage (from the repo root, after bench-reports/strided-inflate/run.sh wrote the table):
%%   erlc -o /tmp bench-reports/strided-inflate/erlang/inflate_bench.erl &&
%%   erl -noshell -pa build/erlang/bufkit/ebin -pa /tmp -eval 'inflate_bench:main(["PACK", "TABLE", "5"])' -s init stop
-module(inflate_bench).
-export([main/1]).

main([PackPath, TablePath, RoundsS]) ->
    {ok, Pack} = file:read_file(PackPath),
    {ok, Table} = file:read_file(TablePath),
    Objects = [{O, S} || <<O:64/little, S:64/little>> <= Table],
    N = length(Objects),
    %% Exact compressed lengths, from bufkit's consumed counts (the zlib module cannot find them).
    Exact = [begin {ok, _, C} = bufkit:inflate_at(Pack, O, S), {O, S, C} end || {O, S} <- Objects],
    Rounds = list_to_integer(RoundsS),
    Z = zlib:open(),
    ok = zlib:inflateInit(Z),
    ZlibRun = fun() ->
        [begin
             ok = zlib:inflateReset(Z),
             _ = zlib:inflate(Z, binary:part(Pack, O, C))
         end || {O, _S, C} <- Exact],
        ok
    end,
    BufkitRun = fun() -> [{ok, _, _} = bufkit:inflate_at(Pack, O, S) || {O, S} <- Objects], ok end,
    Batches = chunks(Objects, 1024),
    BatchRun = fun() -> [bufkit:inflate_batch(Pack, B) || B <- Batches], ok end,
    %% Alternating: each round runs every engine once, so a slow minute hits them all alike.
    Engines = [{"erlang-zlib", ZlibRun}, {"bufkit-inflate_at", BufkitRun}, {"bufkit-inflate_batch-1024", BatchRun}],
    [F() || {_, F} <- Engines], % warm
    Rows = [[element(1, timer:tc(F)) || {_, F} <- Engines] || _ <- lists:seq(1, Rounds)],
    [begin
         Times = lists:sort([lists:nth(K, Row) || Row <- Rows]),
         Median = lists:nth(Rounds div 2 + 1, Times),
         io:format("{\"engine\":\"~s\",\"ns_per_object\":~.1f,\"objects\":~b}~n", [Name, Median * 1000 / N, N])
     end || {K, {Name, _}} <- lists:zip(lists:seq(1, length(Engines)), Engines)],
    zlib:close(Z).

chunks([], _) -> [];
chunks(L, K) when length(L) =< K -> [L];
chunks(L, K) -> {H, T} = lists:split(K, L), [H | chunks(T, K)].
