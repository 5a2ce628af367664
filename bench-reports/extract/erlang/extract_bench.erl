%% Erlang's zip:extract/2 against bufkit:extract/3 on the assets archive, to tmpfs.
%% Usage (from the repo root, after bench-reports/extract/run.py made the archive):
%%   erlc -o /tmp bench-reports/extract/erlang/extract_bench.erl &&
%%   erl -noshell -pa bindings/erlang/ebin -pa /tmp -eval 'extract_bench:main(["/tmp/bufkit-extract-bench/assets.zip", "7"])' -s init stop
-module(extract_bench).
-export([main/1]).

main([Archive, RoundsS]) ->
    Rounds = list_to_integer(RoundsS),
    Root = "/dev/shm/bufkit-erl-extract",
    Clean = fun(D) -> os:cmd("rm -rf " ++ D) end,
    Zip = fun() -> D = Root ++ "/zip", Clean(D), ok = filelib:ensure_path(D),
                   T = element(1, timer:tc(fun() -> {ok, _} = zip:extract(Archive, [{cwd, D}]) end)), T end,
    Bufkit = fun() -> D = Root ++ "/bufkit", Clean(D),
                      T = element(1, timer:tc(fun() -> {ok, _} = bufkit:extract(Archive, D, #{}) end)), T end,
    Median = fun(F) -> F(), lists:nth(Rounds div 2 + 1, lists:sort([F() || _ <- lists:seq(1, Rounds)])) end,
    Z = Median(Zip),
    B = Median(Bufkit),
    Clean(Root),
    io:format("{\"erlang_zip_extract_ms\":~.2f,\"bufkit_extract_ms\":~.2f,\"ratio\":~.2f}~n", [Z / 1000, B / 1000, Z / B]).
