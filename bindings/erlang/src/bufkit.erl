%% @doc bufkit from Erlang: growable byte buffers whose growth you choose and whose cost you can
%% read back, running the same Rust code as every other binding through include/bufkit.h.
%%
%% ```
%% {ok, B} = bufkit:buffer_new(#{growth => segmented}),
%% ok = bufkit:buffer_append(B, <<"hello ">>),
%% ok = bufkit:buffer_append(B, [<<"wor">>, "ld"]),
%% {ok, <<"hello world">>} = bufkit:buffer_to_binary(B),
%% ok = bufkit:buffer_free(B).
%% '''
%%
%% A buffer is a NIF resource: it is freed when garbage-collected, or at once by buffer_free/1,
%% after which every call on it returns {error, closed}. It may be shared between processes
%% (calls on one buffer are serialised). Appends of 64 KiB or more and conversions of 1 MiB or
%% more run on a dirty scheduler, so no normal scheduler is held for long.
%%
%% Wrong values: an options map with a key not listed, or a value of the wrong type or out of
%% range, is an error tuple (`{error, invalid_argument}', and for `extract/3'
%% `{error, {invalid_argument, <<>>}}'), never an exception. An argument that is not of its
%% type (a name that is not iodata, an offset that is not an integer) raises `badarg', as the
%% BIFs do.
-module(bufkit).

%% extract_options(), extract_report() and ?EXTRACT_OPTION_KEYS: generated from include/bufkit.h's structs.
-include("bufkit_extract.hrl").

-export([version/0, abi_version/0,
         buffer_new/0, buffer_new/1, buffer_append/2, buffer_reserve/2, buffer_clear/1,
         buffer_len/1, buffer_stats/1, buffer_to_binary/1, buffer_flatten/1, buffer_free/1,
         pool_new/0, pool_new/1, pool_acquire/2, pool_release/2, pool_trim/1, pool_stats/1, lease_size/1, lease_write/3, lease_read/3, lease_view/1,
         inflate_at/3, inflate_batch/2,
         inflate_stream_new/2, inflate_stream_new/3, inflate_stream_feed/2, inflate_stream_finish/1, inflate_stream_reset/3,
         extract/2, extract/3,
         extract_stream_new/1,
         extract_stream_feed/2,
         extract_stream_finish/3,
         archive_open/1, archive_open/2, archive_close/1, archive_entries/1, archive_find/2, archive_read/2,
         archive_list/1, archive_list/2, archive_verify/1, archive_verify/2, archive_read_at/4,
         archive_checkpoints_export/2, archive_checkpoints_import/3, archive_set_checkpoint_limits/3,
         archive_set_parallel_inflate/2,
         archive_reader_open/2, archive_reader_read/2, archive_reader_close/1]).

-export_type([buffer/0, options/0, stats/0, reason/0, pool/0, lease/0, pool_options/0, archive/0, inflate_stream/0,
              archive_reader/0,
              extract_options/0, extract_report/0]).

-opaque buffer() :: reference().
-opaque pool() :: reference().
-opaque lease() :: reference().
-opaque archive() :: reference().
-opaque inflate_stream() :: reference().
-opaque archive_reader() :: reference().
-type pool_options() :: #{min_class_size => pos_integer(), max_class_size => pos_integer(),
                          max_retained_bytes => non_neg_integer(), max_buffers_per_class => pos_integer(),
                          thread_cache_buffers => non_neg_integer(), zero_on_acquire => boolean(),
                          decay_after_ms => non_neg_integer()}.
-type options() :: #{growth => geometric | linear | exact | segmented,
                     factor => float(), step => pos_integer(), chunk_size => pos_integer(),
                     max_capacity => non_neg_integer(), initial_capacity => non_neg_integer()}.
-type stats() :: #{len := non_neg_integer(), capacity := non_neg_integer(), grows := non_neg_integer(),
                   moves := non_neg_integer(), bytes_copied := non_neg_integer()}.
-type reason() :: closed | capacity_exceeded | alloc_failed | length_overflow | invalid_argument
                | not_contiguous | out_of_range | panic | atom().

%% @doc The loaded library's version, e.g. `<<"0.1.0">>'.
-spec version() -> binary().
version() -> bufkit_nif:version().

%% @doc The loaded library's ABI version.
-spec abi_version() -> pos_integer().
abi_version() -> bufkit_nif:abi_version().

%% @doc A buffer with the default policy (geometric ×2, no practical limit).
-spec buffer_new() -> {ok, buffer()} | {error, reason()}.
buffer_new() -> buffer_new(#{}).

%% @doc A buffer configured by `Options'; unknown keys or values are `{error, invalid_argument}'.
-spec buffer_new(options()) -> {ok, buffer()} | {error, reason()}.
buffer_new(Options) when is_map(Options) ->
    Known = [growth, factor, step, chunk_size, max_capacity, initial_capacity],
    case maps:keys(maps:without(Known, Options)) of
        [] -> bufkit_nif:buffer_new(Options);
        _ -> {error, invalid_argument}
    end;
buffer_new(_) ->
    {error, invalid_argument}.

%% @doc Appends iodata. On error nothing is appended and nothing already held is lost.
%% A list is walked in the NIF, not flattened first. That is the faster way for character lists:
%% each string is taken whole, in the VM's own loop. For a long list made of small binaries,
%% `buffer_append(B, iolist_to_binary(L))' is faster, at the cost of a transient copy: the VM
%% walks binaries with no call per element, and the NIF cannot. bench-reports/abi.md has the
%% numbers: on the seed's 700,000 strings the walk is 1.6x faster with character lists, and
%% flattening first 1.3x faster with binaries.
-spec buffer_append(buffer(), iodata()) -> ok | {error, reason()}.
buffer_append(Buffer, Data) when is_binary(Data) -> bufkit_nif:buffer_append(Buffer, Data);
buffer_append(Buffer, Data) when is_list(Data) ->
    %% The NIF walks the list and appends each piece as it comes, flattening nothing (a character
    %% list in one call, not a call per character); a term that is not an iolist raises badarg
    %% (as iolist_to_binary/1 would) and appends nothing.
    bufkit_nif:buffer_append_iolist(Buffer, Data);
buffer_append(_, _) -> {error, invalid_argument}.

%% @doc Makes room for `Additional' more bytes.
-spec buffer_reserve(buffer(), non_neg_integer()) -> ok | {error, reason()}.
buffer_reserve(Buffer, Additional) when is_integer(Additional), Additional >= 0 ->
    bufkit_nif:buffer_reserve(Buffer, Additional);
buffer_reserve(_, _) -> {error, invalid_argument}.

%% @doc Forgets the bytes, keeps the capacity and counters.
-spec buffer_clear(buffer()) -> ok | {error, reason()}.
buffer_clear(Buffer) -> bufkit_nif:buffer_clear(Buffer).

%% @doc Bytes held.
-spec buffer_len(buffer()) -> {ok, non_neg_integer()} | {error, reason()}.
buffer_len(Buffer) ->
    case buffer_stats(Buffer) of
        {ok, #{len := Len}} -> {ok, Len};
        Error -> Error
    end.

%% @doc The growth counters: grows, moves, bytes copied, plus length and capacity.
-spec buffer_stats(buffer()) -> {ok, stats()} | {error, reason()}.
buffer_stats(Buffer) -> bufkit_nif:buffer_stats(Buffer).

%% @doc All bytes as one binary (one copy into a fresh binary, for every policy).
-spec buffer_to_binary(buffer()) -> {ok, binary()} | {error, reason()}.
buffer_to_binary(Buffer) -> bufkit_nif:buffer_to_binary(Buffer).

%% @doc Makes a segmented buffer contiguous (one copy, counted in bytes_copied).
-spec buffer_flatten(buffer()) -> ok | {error, reason()}.
buffer_flatten(Buffer) -> bufkit_nif:buffer_flatten(Buffer).

%% @doc Frees the buffer now instead of at garbage collection. Freeing twice is `ok'. On Linux
%% the memory of one freed buffer of 128 KiB to 32 MiB is kept for the next buffer that grows
%% that large (offered back to the kernel with MADV_FREE until then), as bk_buffer_free documents.
-spec buffer_free(buffer()) -> ok.
buffer_free(Buffer) -> bufkit_nif:buffer_free(Buffer).

%% @doc A buffer pool with the defaults (4 KiB … 4 MiB classes, 64 MiB cap).
%%
%% A pool is a resource shared by every process that holds it; each lease keeps its pool alive,
%% and a lease garbage-collected unreleased is released then. NIFs of later releases draw their
%% work buffers from pools like this one.
-spec pool_new() -> {ok, pool()} | {error, reason()}.
pool_new() -> pool_new(#{}).

%% @doc A pool configured by `Options'.
-spec pool_new(pool_options()) -> {ok, pool()} | {error, reason()}.
pool_new(Options) when is_map(Options) ->
    Known = [min_class_size, max_class_size, max_retained_bytes, max_buffers_per_class,
             thread_cache_buffers, zero_on_acquire, decay_after_ms],
    case maps:keys(maps:without(Known, Options)) of
        [] -> bufkit_nif:pool_new(Options);
        _ -> {error, invalid_argument}
    end;
pool_new(_) -> {error, invalid_argument}.

%% @doc Lends a buffer of at least `Size' bytes.
-spec pool_acquire(pool(), pos_integer()) -> {ok, lease()} | {error, reason()}.
pool_acquire(Pool, Size) when is_integer(Size), Size >= 0 -> bufkit_nif:pool_acquire(Pool, Size);
pool_acquire(_, _) -> {error, invalid_argument}.

%% @doc Gives a lease back to the pool that lent it (`wrong_pool' otherwise; `lease_invalid' twice).
-spec pool_release(pool(), lease()) -> ok | {error, reason()}.
pool_release(Pool, Lease) -> bufkit_nif:pool_release(Pool, Lease).

%% @doc Frees every idle buffer.
-spec pool_trim(pool()) -> ok | {error, reason()}.
pool_trim(Pool) -> bufkit_nif:pool_trim(Pool).

%% @doc The pool's totals.
-spec pool_stats(pool()) -> {ok, map()} | {error, reason()}.
pool_stats(Pool) -> bufkit_nif:pool_stats(Pool).

%% @doc Usable bytes of a lease (its size class).
-spec lease_size(lease()) -> {ok, pos_integer()} | {error, reason()}.
lease_size(Lease) -> bufkit_nif:lease_size(Lease).

%% @doc Copies `Data' into the lease at byte `Offset' (`out_of_range' past its size,
%% `lease_invalid' once released, `viewed' once `lease_view/1' has made a binary of it).
-spec lease_write(lease(), non_neg_integer(), iodata()) -> ok | {error, out_of_range | lease_invalid | viewed}.
lease_write(Lease, Offset, Data) when is_integer(Offset), Offset >= 0 -> bufkit_nif:lease_write(Lease, Offset, Data);
lease_write(_, _, _) -> {error, invalid_argument}.

%% @doc A copy of `Length' bytes of the lease from byte `Offset', as a fresh binary.
-spec lease_read(lease(), non_neg_integer(), non_neg_integer()) -> {ok, binary()} | {error, reason()}.
lease_read(Lease, Offset, Length) when is_integer(Offset), Offset >= 0, is_integer(Length), Length >= 0 ->
    bufkit_nif:lease_read(Lease, Offset, Length);
lease_read(_, _, _) -> {error, invalid_argument}.

%% @doc The whole lease as a binary over its memory, without a copy. Binaries do not change, so
%% the lease then takes no more writes, and its memory goes back to the pool only when the lease
%% and every binary made from it are garbage (`pool_release/2' still returns `ok' meanwhile, and
%% the lease counts as outstanding in `pool_stats/1' until then).
-spec lease_view(lease()) -> {ok, binary()} | {error, reason()}.
lease_view(Lease) -> bufkit_nif:lease_view(Lease).

%% @doc Inflates the zlib stream that starts at byte `Offset' of `Binary' to exactly
%% `ExpectedSize' bytes, and says how many input bytes it occupied (the next stream starts at
%% `Offset + Consumed'). The input is read in place; bytes after the stream are never read as
%% part of it. Large outputs (256 KiB and up) inflate on a dirty scheduler. For example,
%% `bufkit:inflate_at(<<(zlib:compress(<<"hello">>))/binary, "next">>, 0, 5)' is
%% `{ok, <<"hello">>, 13}'.
-spec inflate_at(binary(), non_neg_integer(), non_neg_integer()) ->
    {ok, binary(), non_neg_integer()} | {error, truncated | checksum | size_mismatch | corrupt | out_of_range | atom()}.
inflate_at(Binary, Offset, ExpectedSize)
  when is_binary(Binary), is_integer(Offset), Offset >= 0, is_integer(ExpectedSize), ExpectedSize >= 0 ->
    bufkit_nif:inflate_at(Binary, Offset, ExpectedSize);
inflate_at(_, _, _) ->
    {error, invalid_argument}.

%% @doc Inflates many streams of one binary in one call (on a dirty scheduler): a result per
%% `{Offset, ExpectedSize}', in order, each as from inflate_at/3. The outputs are sub-binaries of
%% one binary made for the batch: keeping any of them keeps the whole batch's output alive, so
%% `binary:copy/1' what you keep for long.
-spec inflate_batch(binary(), [{non_neg_integer(), non_neg_integer()}]) -> [tuple()] | {error, invalid_argument}.
inflate_batch(Binary, Requests) when is_binary(Binary), is_list(Requests) ->
    Valid = fun({O, S}) -> is_integer(O) andalso O >= 0 andalso is_integer(S) andalso S >= 0; (_) -> false end,
    case lists:all(Valid, Requests) of
        true -> bufkit_nif:inflate_batch(Binary, Requests);
        false -> {error, invalid_argument}
    end;
inflate_batch(_, _) ->
    {error, invalid_argument}.

%% @doc A stream inflated from input that arrives in pieces (a socket, a file read in blocks):
%% `Format' is `zlib' or `raw' (deflate), `Size' its exact inflated size, `Origin' the offset its
%% failures report (default 0). The output binary is allocated now and handed over at the end.
%% For example, a zlib stream of `<<"hello">>' (13 bytes) followed by `"next"', in two pieces:
%% `{more, 4} = bufkit:inflate_stream_feed(S, First4)', then
%% `{done, 9, 13, <<"hello">>} = bufkit:inflate_stream_feed(S, Rest)': 9 of the second piece's
%% bytes were the stream's.
-spec inflate_stream_new(zlib | raw, non_neg_integer()) -> {ok, inflate_stream()} | {error, reason()}.
inflate_stream_new(Format, Size) -> inflate_stream_new(Format, Size, 0).

-spec inflate_stream_new(zlib | raw, non_neg_integer(), non_neg_integer()) -> {ok, inflate_stream()} | {error, reason()}.
inflate_stream_new(Format, Size, Origin)
  when (Format =:= zlib orelse Format =:= raw), is_integer(Size), Size >= 0, is_integer(Origin), Origin >= 0 ->
    bufkit_nif:inflate_stream_new(Format, Origin, Size);
inflate_stream_new(_, _, _) ->
    {error, invalid_argument}.

%% @doc Feeds the next piece. `{more, Used}' (all of it was the stream's), or `{done, Used,
%% Consumed, Output}' once the stream has ended and verified: `Used' of this piece's bytes were
%% its last, the rest belong to what follows; `Consumed' is all the bytes it occupied. Failures:
%% `{error, checksum | corrupt | size_mismatch}'. Pieces of 256 KiB and up run on a dirty
%% scheduler. After `done' (or to start another stream), use inflate_stream_reset/3.
-spec inflate_stream_feed(inflate_stream(), binary()) ->
    {more, non_neg_integer()} | {done, non_neg_integer(), pos_integer(), binary()} | {error, reason()}.
inflate_stream_feed(Stream, Piece) when is_binary(Piece), Piece =/= <<>> -> bufkit_nif:inflate_stream_feed(Stream, Piece);
inflate_stream_feed(_, _) -> {error, invalid_argument}.

%% @doc Says the input has ended: `{error, truncated}' if the stream has not; `ok' after `done'.
-spec inflate_stream_finish(inflate_stream()) -> ok | {error, reason()}.
inflate_stream_finish(Stream) ->
    case bufkit_nif:inflate_stream_feed(Stream, <<>>) of
        {error, invalid_argument} -> ok; % already done: its output was handed over
        Other -> Other
    end.

%% @doc Starts over for the next stream, keeping the decoder: a new output of `Size' bytes.
-spec inflate_stream_reset(inflate_stream(), non_neg_integer(), non_neg_integer()) -> ok | {error, reason()}.
inflate_stream_reset(Stream, Size, Origin) when is_integer(Size), Size >= 0, is_integer(Origin), Origin >= 0 ->
    bufkit_nif:inflate_stream_reset(Stream, Origin, Size);
inflate_stream_reset(_, _, _) ->
    {error, invalid_argument}.

%% @doc As `extract/3' with the default options: `Dest' must not exist or be an empty directory.
%% `{ok, Report} = bufkit:extract("app.apk", "out")'.
-spec extract(file:filename_all(), file:filename_all()) -> {ok, extract_report()} | {error, {atom(), binary()}}.
extract(Archive, Dest) -> extract(Archive, Dest, #{}).

%% @doc Extracts the zip/APK/JAR at `Archive' into `Dest' (nothing there changes unless every
%% entry has verified; on any failure nothing is left behind), on a dirty I/O scheduler.
%% Options (`extract_options()', generated from `bk_extract_options', each key documented in
%% bufkit_extract.hrl): `mode' (`create', the default: `Dest' must not exist or be an empty
%% directory; `replace': an existing directory is replaced as a whole; `merge': files are added
%% into it; a refused destination is `{error, {destination_refused, Dest}}' with nothing touched),
%% `threads', `only' (patterns: `*', `?' or `dir/'; matching nothing is `nothing_selected'),
%% `strict', `skip_symlinks', `quota', `max_ratio', `durable', `no_mtime', `incremental',
%% `fold_case', `progress' (a pid that receives `{bufkit_extract_progress, EntriesDone,
%% EntriesTotal, BytesDone, BytesTotal}' messages, at most one every `progress_interval_ms'
%% milliseconds (default 50; 0 for one per entry) and always the last one, with EntriesDone =
%% EntriesTotal, which no other follows). A key not listed, or a value of the wrong type, is
%% `{error, {invalid_argument, <<>>}}'.
%% The report (`extract_report()') is `bk_extract_report' as a map: `files', `directories',
%% `bytes', `skipped' (left out by `only'), `reused', `prepended' and `appended' (bytes of other
%% data before and after the zip part, read past) and `symlinks_skipped'.
%% Errors name the entry at fault (`<<>>' when none): `{error, {unsafe_name, <<"../x">>}}'; a
%% failed system call gives its POSIX reason and the path, as the `file' module does:
%% `{error, {enoent, <<"/no/such.zip">>}}', `{error, {enospc, Path}}'; a refused destination
%% `{error, {destination_refused, Path}}'.
-spec extract(file:filename_all(), file:filename_all(), extract_options()) ->
    {ok, extract_report()} | {error, {atom(), binary()}}.
extract(Archive, Dest, Options) when is_map(Options) ->
    case filename_binary(Archive) of
        {ok, ArchiveName} ->
            with_options(Dest, Options, fun(DestName, Checked) -> bufkit_nif:extract(ArchiveName, DestName, Checked) end);
        error ->
            {error, {invalid_argument, <<>>}}
    end;
extract(_, _, _) ->
    {error, {invalid_argument, <<>>}}.

%% Calls `Extract(DestName, Options)' once `Dest' and `Options' are checked and the `only'
%% patterns converted; else `{error, {invalid_argument, <<>>}}'.
with_options(Dest, Options, Extract) when is_map(Options) ->
    Unknown = maps:keys(maps:without(?EXTRACT_OPTION_KEYS, Options)),
    case {Unknown, patterns(maps:get(only, Options, [])), filename_binary(Dest)} of
        {[], {ok, Only}, {ok, DestName}} -> Extract(DestName, Options#{only => Only});
        _ -> {error, {invalid_argument, <<>>}}
    end;
with_options(_, _, _) ->
    {error, {invalid_argument, <<>>}}.

%% @doc Starts receiving an archive that arrives in pieces (a download, a socket's messages), to be
%% extracted into `Dest': feed it with `extract_stream_feed/2' as each piece arrives, then
%% `extract_stream_finish/3'. The pieces are spooled (in memory up to 8 MiB, beyond that in an
%% unnamed file on the file system `Dest' goes to: nothing is left behind whatever happens, the
%% process's death included) and extracted once whole, with every check a file gets.
%%
%% ```
%% {ok, S} = bufkit:extract_stream_new("update"),
%% ok = bufkit:extract_stream_feed(S, Chunk),  % for each chunk, as it arrives
%% {ok, #{files := N}} = bufkit:extract_stream_finish(S, "update", #{}).
%% '''
-spec extract_stream_new(file:filename_all()) -> {ok, reference()} | {error, atom()}.
extract_stream_new(Dest) ->
    case filename_binary(Dest) of
        {ok, DestName} -> bufkit_nif:extract_stream_new(DestName);
        error -> {error, invalid_argument}
    end.

%% @doc Appends the next piece (a binary or iolist) of the archive, on a dirty I/O scheduler.
%% `{error, io_error}' if the spool cannot take it; `{error, invalid_argument}' once finished.
-spec extract_stream_feed(reference(), iodata()) -> ok | {error, atom()}.
extract_stream_feed(Stream, Bytes) ->
    bufkit_nif:extract_stream_feed(Stream, Bytes).

%% @doc Extracts the archive fed so far, which must be whole, into `Dest', as `extract/3'
%% extracts a file: the same options, report and errors (a stream cut short is
%% `{error, {archive_malformed, Name}}'). The stream is spent afterwards, whatever the result.
-spec extract_stream_finish(reference(), file:filename_all(), extract_options()) ->
    {ok, extract_report()} | {error, {atom(), binary()}}.
extract_stream_finish(Stream, Dest, Options) ->
    with_options(Dest, Options, fun(DestName, Checked) -> bufkit_nif:extract_stream_finish(Stream, DestName, Checked) end).

%% The `only' patterns as binaries: a list of strings or binaries, else `error' (a lone string,
%% which is a list of characters, included).
patterns(Patterns) when is_list(Patterns) ->
    Converted = [pattern(P) || P <- Patterns],
    case lists:all(fun is_binary/1, Converted) of
        true -> {ok, Converted};
        false -> error
    end;
patterns(_) ->
    error.

pattern(P) when is_binary(P) -> P;
pattern(P) when is_list(P) ->
    try unicode:characters_to_binary(P) of
        Bin when is_binary(Bin) -> Bin;
        _ -> error
    catch
        error:_ -> error
    end;
pattern(_) ->
    error.

%% A file name as a binary, `{ok, Bin}', or `error' for a value that is no file name.
filename_binary(Name) when is_binary(Name) -> {ok, Name};
filename_binary(Name) ->
    try unicode:characters_to_binary(filename:flatten(Name)) of
        Bin when is_binary(Bin) -> {ok, Bin};
        _ -> error
    catch
        error:_ -> error
    end.

%% @doc Opens a zip/APK/JAR to read its entries in place: its central directory validated once,
%% here, with the same strict rules as extraction (on a dirty I/O scheduler); each entry's local
%% header when the entry is first read. Any process may read from the archive.
-spec archive_open(file:filename_all()) -> {ok, archive()} | {error, reason()}.
archive_open(Path) -> archive_open(Path, #{}).

%% @doc As `archive_open/1'. Options: `holding' (`read', the default: entries are read from the
%% file as they are asked for, each read checking its CRC, so a file changed afterwards gives
%% `{error, _}', never a crash; `map': memory-mapped, stored entries shared without a copy, and
%% the file must not change while the archive is open, as for an installed APK); `local_headers'
%% (`at_open', the default: every entry's local header is checked now, so an archive extraction
%% refuses is refused here with the same reason; `on_first_read': opening reads only the central
%% directory, and an entry whose local header disagrees fails its reads with
%% `{error, archive_malformed}', for archives the program trusts, such as its own, opened often).
-spec archive_open(file:filename_all(), #{holding => read | map, local_headers => at_open | on_first_read}) ->
    {ok, archive()} | {error, reason()}.
archive_open(Path, Options) when is_map(Options) ->
    case {maps:keys(maps:without([holding, local_headers], Options)), filename_binary(Path)} of
        {[], {ok, Name}} -> bufkit_nif:archive_open(Name, maps:get(holding, Options, read),
                                                    maps:get(local_headers, Options, at_open));
        _ -> {error, invalid_argument}
    end;
archive_open(_, _) -> {error, invalid_argument}.

%% @doc Closes the archive before the garbage collector would: every later call with it returns
%% `{error, closed}' (closing again is `ok'). Its memory (the central directory's index, the
%% mapping) is freed at once, or when the calls using it at this moment end; never waiting. One
%% exception: after a `map' archive has handed out a stored entry as a binary over its own bytes,
%% the archive is freed when the last such binary is garbage collected.
-spec archive_close(archive()) -> ok.
archive_close(Archive) -> bufkit_nif:archive_close(Archive).

%% @doc Every entry's name, in archive order (as extraction writes them: `/'-separated, a
%% directory without its trailing `/').
-spec archive_list(archive()) -> [binary()] | {error, closed}.
archive_list(Archive) -> bufkit_nif:archive_list(Archive, all).

%% @doc The names of the entries matching `Pattern', in archive order: `*' any run of characters
%% (`/' included), `?' one character, and a pattern ending in `/' a directory and everything under
%% it (the patterns of extraction's `only').
-spec archive_list(archive(), iodata()) -> [binary()] | {error, reason()}.
archive_list(Archive, Pattern) -> bufkit_nif:archive_list(Archive, iolist_to_binary(Pattern)).

%% @doc Every entry as `{Index, Name, Size, file | directory}', in archive order: `Index' is what
%% `archive_read/2' takes (names as extraction writes them: `/'-separated, a directory without its
%% trailing `/').
-spec archive_entries(archive()) -> [{non_neg_integer(), binary(), non_neg_integer(), file | directory}] | {error, closed}.
archive_entries(Archive) -> bufkit_nif:archive_entries(Archive).

%% @doc Checks every entry as a read would, writing nothing (`unzip -t'): each local header, and
%% each file inflated in bounded pieces with its size and CRC-32 checked, on a dirty I/O
%% scheduler. `ok', or `{error, {Reason, Failed, FirstIndex}}': why the first failing entry failed,
%% how many failed, and the first one's index. Option: `threads' (0, the default: one per core).
-spec archive_verify(archive()) -> ok | {error, {reason(), pos_integer(), non_neg_integer()}}.
archive_verify(Archive) -> archive_verify(Archive, #{}).

-spec archive_verify(archive(), #{threads => non_neg_integer()}) ->
    ok | {error, {reason(), pos_integer(), non_neg_integer()}}.
archive_verify(Archive, Options) when is_map(Options) ->
    case maps:get(threads, Options, 0) of
        Threads when is_integer(Threads), Threads >= 0, Threads =< 16#ffffffff ->
            bufkit_nif:archive_verify(Archive, Threads);
        _ -> {error, invalid_argument}
    end;
archive_verify(_, _) -> {error, invalid_argument}.

%% @doc The index of the entry named `Name', or `{error, not_found}'.
-spec archive_find(archive(), iodata()) -> {ok, non_neg_integer()} | {error, not_found}.
archive_find(Archive, Name) -> bufkit_nif:archive_find(Archive, iolist_to_binary(Name)).

%% @doc The whole entry (by index or by name) as a binary, inflated straight into it; its CRC-32
%% is checked the first time it is read. Large entries are read on a dirty scheduler. A stored
%% entry comes back without a copy: a binary over the archive's own bytes, which keeps the archive
%% in memory while it lives (in the `map' holding, the file must then stay unchanged as long).
-spec archive_read(archive(), non_neg_integer() | iodata()) -> {ok, binary()} | {error, reason()}.
archive_read(Archive, Index) when is_integer(Index), Index >= 0 -> bufkit_nif:archive_read(Archive, Index);
archive_read(Archive, Name) ->
    case archive_find(Archive, Name) of
        {ok, Index} -> bufkit_nif:archive_read(Archive, Index);
        Error -> Error
    end.

%% @doc Opens an entry (by index or by name) to be read front to back in pieces with
%% `archive_reader_read/2', in bounded memory whatever its size (about 100 KiB for a deflated
%% entry): one inflate of the entry for the whole pass, on several cores when
%% `archive_set_parallel_inflate/2' says so (then a few 4 MiB chunks per core ahead of the reads). The reader keeps what it reads alive (the
%% archive may be closed first); any process may use it, one call at a time.
-spec archive_reader_open(archive(), non_neg_integer() | iodata()) -> {ok, archive_reader()} | {error, reason()}.
archive_reader_open(Archive, Index) when is_integer(Index), Index >= 0 -> bufkit_nif:archive_reader_open(Archive, Index);
archive_reader_open(Archive, Name) ->
    case archive_find(Archive, Name) of
        {ok, Index} -> bufkit_nif:archive_reader_open(Archive, Index);
        Error -> Error
    end.

%% @doc The entry's next bytes, at most `Max' (at least 1): fewer only at its end, then `eof'
%% once its checks (sizes, CRC-32) have passed. Bytes come out before those checks: when one
%% fails, the read that would give `eof' gives `{error, Reason}' instead, and so does every later
%% read. Reads of 256 KiB or more run on a dirty CPU scheduler, and every read of an entry
%% inflated on several cores on a dirty I/O one.
-spec archive_reader_read(archive_reader(), pos_integer()) -> {ok, binary()} | eof | {error, reason()}.
archive_reader_read(Reader, Max) when is_integer(Max), Max > 0, Max =< 1 bsl 30 ->
    bufkit_nif:archive_reader_read(Reader, Max);
archive_reader_read(_, _) ->
    {error, invalid_argument}.

%% @doc Frees the reader now (the garbage collector would later); later reads are
%% `{error, closed}'.
-spec archive_reader_close(archive_reader()) -> ok.
archive_reader_close(Reader) -> bufkit_nif:archive_reader_close(Reader).

%% @doc Up to `Length' bytes of an entry's data from byte `Offset': shorter only where the entry
%% ends (`<<>>' at its end); an `Offset' past the end is `{error, out_of_range}'. The cost follows
%% the slice, not the entry: a stored entry is read in place; a deflated one inflates from the
%% last checkpoint before `Offset', at most about 1 MiB. The entry's first slice builds its
%% checkpoints (32 KiB per MiB of the entry) in one full pass that checks its CRC-32, unless
%% `archive_checkpoints_import/3' gave them; a CRC-32 covers only a whole entry, so a slice is as
%% checked as that pass. On a dirty CPU scheduler for a compressed entry of 256 KiB or more.
-spec archive_read_at(archive(), non_neg_integer() | iodata(), non_neg_integer(), non_neg_integer()) ->
    {ok, binary()} | {error, reason()}.
archive_read_at(Archive, Index, Offset, Length) when is_integer(Index), Index >= 0 ->
    bufkit_nif:archive_read_at(Archive, Index, Offset, Length);
archive_read_at(Archive, Name, Offset, Length) ->
    case archive_find(Archive, Name) of
        {ok, Index} -> bufkit_nif:archive_read_at(Archive, Index, Offset, Length);
        Error -> Error
    end.

%% @doc A deflated entry's checkpoints as a binary to keep beside the archive, for
%% `archive_checkpoints_import/3' in a later run (built now, on a dirty CPU scheduler, if the
%% archive does not hold them). A stored entry is `{error, invalid_argument}'.
-spec archive_checkpoints_export(archive(), non_neg_integer()) -> {ok, binary()} | {error, reason()}.
archive_checkpoints_export(Archive, Index) -> bufkit_nif:archive_checkpoints_export(Archive, Index).

%% @doc Gives entry `Index' the checkpoints `archive_checkpoints_export/2' made: kept only if made
%% for this entry's data (its sizes and CRC-32) and whole and unaltered, else
%% `{error, checkpoints_refused}' and nothing changes.
-spec archive_checkpoints_import(archive(), non_neg_integer(), binary()) -> ok | {error, reason()}.
archive_checkpoints_import(Archive, Index, Bytes) -> bufkit_nif:archive_checkpoints_import(Archive, Index, Bytes).

%% @doc How far apart deflated entries' checkpoints are (`Span' bytes of output, at least 32 KiB;
%% default 1 MiB) and how much memory the archive's checkpoints may take in all (`Budget' bytes;
%% default 64 MiB; 0 keeps none, and every slice then inflates from its entry's start). Each
%% checkpoint holds 32 KiB; an entry whose checkpoints would not fit gets a longer span, and those
%% of the entries read longest ago are dropped to make room.
-spec archive_set_checkpoint_limits(archive(), non_neg_integer(), non_neg_integer()) -> ok | {error, reason()}.
archive_set_checkpoint_limits(Archive, Span, Budget) -> bufkit_nif:archive_set_checkpoint_limits(Archive, Span, Budget).

%% @doc When a large deflated entry is inflated on several cores by `archive_read/2' and the
%% readers: `auto' (the default: an entry of 20 MiB or more, with 4 cores or more), `always' or
%% `never'. The bytes and every check are the same; readers already open keep how they were opened.
-spec archive_set_parallel_inflate(archive(), auto | always | never) -> ok | {error, reason()}.
archive_set_parallel_inflate(Archive, Mode) when Mode =:= auto; Mode =:= always; Mode =:= never ->
    bufkit_nif:archive_set_parallel_inflate(Archive, Mode);
archive_set_parallel_inflate(_, _) -> {error, invalid_argument}.
