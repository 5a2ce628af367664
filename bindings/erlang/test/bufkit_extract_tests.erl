%% Extraction: progress, modification times, options, hostile and truncated archives, a killed
%% caller, prepended data, parallel inflate, and archives fed as streams.
-module(bufkit_extract_tests).
-include_lib("eunit/include/eunit.hrl").
-import(bufkit_test_support, [in_dir/1]).

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

%% The defaults without a map: extract/2 is extract/3 with #{}, refusals included.
extract_with_the_defaults_test() ->
    in_dir(fun(Dir) ->
        Zip = filename:join(Dir, "d.zip"),
        {ok, _} = zip:create(Zip, [{"a/b.txt", <<"b">>}, {"c.txt", <<"c">>}]),
        Dest = filename:join(Dir, "out"),
        {ok, #{files := 2}} = bufkit:extract(Zip, Dest),
        {ok, <<"b">>} = file:read_file(filename:join(Dest, "a/b.txt")),
        ?assertEqual({error, {destination_refused, list_to_binary(Dest)}}, bufkit:extract(Zip, Dest))
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
