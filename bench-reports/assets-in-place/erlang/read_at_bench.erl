%% Random 4 KiB reads inside a 256 MiB deflated entry from Erlang (issue 28): bufkit's
%% archive_read_at/4 against what an Erlang programmer writes with OTP's zip module (zip_open,
%% zip_get of the entry into memory, binary:part of the slice), every slice checked equal.
%% The archive must not use ZIP64 records: OTP 25's zip refuses the one read_at.py writes (a badmatch
%% inside zip:zip_get), so read_at.sh (beside this file) rewrites its entry into log256-plain.zip.
%% Run: erlc -o /tmp bench-reports/assets-in-place/erlang/read_at_bench.erl &&
%%      erl -noshell -pa build/erlang/bufkit/ebin -pa /tmp -eval 'read_at_bench:run("/tmp/bufkit-read-at/log256-plain.zip", "app.log", 1000), halt().'
-module(read_at_bench).
-export([run/3]).

run(Path, Name, Reads) ->
    {ok, A} = bufkit:archive_open(Path),
    {ok, Index} = bufkit:archive_find(A, Name),
    [{Index, _, Size, file}] = [E || E = {I, _, _, _} <- bufkit:archive_entries(A), I =:= Index],
    rand:seed(exsss, {28, 28, 28}),
    {First, {ok, _}} = timer:tc(fun() -> bufkit:archive_read_at(A, Index, Size div 3, 4096) end),
    Offsets = [rand:uniform(Size - 4096) - 1 || _ <- lists:seq(1, Reads)],
    Lat = lists:sort([element(1, timer:tc(fun() -> {ok, _} = bufkit:archive_read_at(A, Index, O, 4096) end)) || O <- Offsets]),
    ZipReads = 3,
    ZipLat = [begin
                  {T, Slice} = timer:tc(fun() ->
                      {ok, Handle} = zip:zip_open(Path, [memory]),
                      {ok, {_, Whole}} = zip:zip_get(Name, Handle),
                      ok = zip:zip_close(Handle),
                      binary:part(Whole, O, 4096)
                  end),
                  {ok, Slice} = bufkit:archive_read_at(A, Index, O, 4096),
                  T
              end || O <- lists:sublist(Offsets, ZipReads)],
    ok = bufkit:archive_close(A),
    Median = lists:nth(Reads div 2, Lat) / 1000,
    ZipMean = lists:sum(ZipLat) / ZipReads / 1000,
    io:format("{\"entry_bytes\": ~b, \"reads\": ~b, \"first_read_ms\": ~.1f, \"median_ms\": ~.3f, \"p99_ms\": ~.3f, "
              "\"max_ms\": ~.3f, \"zip_get_mean_ms\": ~.1f, \"zip_over_median\": ~.1f}~n",
              [Size, Reads, First / 1000, Median, lists:nth(Reads * 99 div 100, Lat) / 1000, lists:last(Lat) / 1000,
               ZipMean, ZipMean / Median]).
