%% Erlang's zip:extract/2 against bufkit:extract/3, to tmpfs.
%% With a third argument PREFIX (the APK case, issue 25: "assets/"), only the entries under it:
%% zip:extract/2 gets them as a file_list (made from zip:list_dir/1 before the clock starts, as if
%% the caller knew them), bufkit:extract/3 gets #{only => [PREFIX]}.
%% Usage (from the repo root, after bench-reports/asset-extract/run.py made the archives, and
%% only_what_is_asked.py made app.apk):
%%   erlc -o /tmp bench-reports/asset-extract/erlang/extract_bench.erl &&
%%   erl -noshell -pa build/erlang/bufkit/ebin -pa /tmp -eval 'extract_bench:main(["/tmp/bufkit-extract-bench/assets.zip", "7"])' -s init stop
%%   erl -noshell -pa build/erlang/bufkit/ebin -pa /tmp -eval 'extract_bench:main(["/tmp/bufkit-extract-bench/app.apk", "7", "assets/"])' -s init stop
-module(extract_bench).
-export([main/1]).

main([Archive, RoundsS]) ->
    main([Archive, RoundsS, ""]);
main([Archive, RoundsS, Prefix]) ->
    Rounds = list_to_integer(RoundsS),
    Root = "/dev/shm/bufkit-erl-extract",
    Clean = fun(D) -> os:cmd("rm -rf " ++ D) end,
    {ZipOptions, BufkitOptions} =
        case Prefix of
            "" -> {[], #{}};
            _ ->
                {ok, Listed} = zip:list_dir(Archive),
                Names = [N || {zip_file, N, _, _, _, _} <- Listed, lists:prefix(Prefix, N)],
                {[{file_list, Names}], #{only => [Prefix]}}
        end,
    Zip = fun() -> D = Root ++ "/zip", Clean(D), ok = filelib:ensure_path(D),
                   T = element(1, timer:tc(fun() -> {ok, _} = zip:extract(Archive, [{cwd, D} | ZipOptions]) end)), T end,
    Bufkit = fun() -> D = Root ++ "/bufkit", Clean(D),
                      T = element(1, timer:tc(fun() -> {ok, _} = bufkit:extract(Archive, D, BufkitOptions) end)), T end,
    %% Alternating rounds, after one warm-up of each.
    Zip(), Bufkit(),
    Pairs = [{Zip(), Bufkit()} || _ <- lists:seq(1, Rounds)],
    Median = fun(L) -> lists:nth(length(L) div 2 + 1, lists:sort(L)) end,
    Z = Median([A || {A, _} <- Pairs]),
    B = Median([C || {_, C} <- Pairs]),
    Clean(Root),
    io:format("{\"archive\":\"~s\",\"only\":\"~s\",\"erlang_zip_extract_ms\":~.2f,\"bufkit_extract_ms\":~.2f,\"ratio\":~.2f}~n",
              [filename:basename(Archive), Prefix, Z / 1000, B / 1000, Z / B]).
