%% One large deflated entry read whole from Erlang: OTP's zip (zip_open + zip_get, the whole entry
%% as one binary, the baseline) against bufkit's streaming reader (archive_reader_read/2 in 64 KiB
%% and 1 MiB pieces, each dropped as a streaming consumer would) and archive_read/2 (the whole
%% entry). Alternating, Rounds rounds; median wall time and its ratio to zip_get.
-module(stream_bench).
-export([run/3]).

run(Zip, Entry, Rounds) ->
    Name = list_to_binary(Entry),
    Cases = [
        {"zip:zip_get (whole entry)", fun() ->
            {ok, H} = zip:zip_open(Zip, [memory]),
            {ok, {_, Bin}} = zip:zip_get(Entry, H),
            ok = zip:zip_close(H),
            byte_size(Bin)
        end},
        {"bufkit reader, 64 KiB reads", fun() -> stream(Zip, Name, 65536) end},
        {"bufkit reader, 1 MiB reads", fun() -> stream(Zip, Name, 1 bsl 20) end},
        {"bufkit archive_read (whole entry)", fun() ->
            {ok, A} = bufkit:archive_open(Zip),
            {ok, Bin} = bufkit:archive_read(A, Name),
            ok = bufkit:archive_close(A),
            byte_size(Bin)
        end}
    ],
    Times = [[begin
                  garbage_collect(),
                  T0 = erlang:monotonic_time(microsecond),
                  Size = F(),
                  {Label, erlang:monotonic_time(microsecond) - T0, Size}
              end || {Label, F} <- Cases] || _ <- lists:seq(1, Rounds)],
    Sizes = lists:usort([S || Round <- Times, {_, _, S} <- Round]),
    1 = length(Sizes),
    Median = fun(Label) ->
        Sorted = lists:sort([T || Round <- Times, {L, T, _} <- Round, L =:= Label]),
        lists:nth((length(Sorted) + 1) div 2, Sorted)
    end,
    Base = Median("zip:zip_get (whole entry)"),
    io:format("~s (~b bytes), ~b rounds~n", [Entry, hd(Sizes), Rounds]),
    [io:format("  ~-36s ~8.1f ms  ~5.2fx zip_get~n", [L, Median(L) / 1000, Median(L) / Base]) || {L, _} <- Cases],
    ok.

stream(Zip, Name, Max) ->
    {ok, A} = bufkit:archive_open(Zip),
    {ok, R} = bufkit:archive_reader_open(A, Name),
    Size = drain(R, Max, 0),
    ok = bufkit:archive_reader_close(R),
    ok = bufkit:archive_close(A),
    Size.

drain(R, Max, Acc) ->
    case bufkit:archive_reader_read(R, Max) of
        {ok, Bin} -> drain(R, Max, Acc + byte_size(Bin));
        eof -> Acc
    end.
