%% Archives read in place: entries found and read, closing, verifying, every compression method,
%% local headers, listing, slices and checkpoints, and streaming readers.
-module(bufkit_archive_tests).
-include_lib("eunit/include/eunit.hrl").
-import(bufkit_test_support, [methods_zip/0, in_dir/1]).

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
