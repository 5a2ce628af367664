%% @private
%% The NIF functions behind bufkit; use the bufkit module instead.
-module(bufkit_nif).

-export([version/0, abi_version/0, test_panic/0,
         buffer_new/1, buffer_append/2, buffer_append_iolist/2, buffer_reserve/2, buffer_clear/1, buffer_stats/1,
         buffer_to_binary/1, buffer_flatten/1, buffer_free/1,
         pool_new/1, pool_acquire/2, pool_release/2, pool_trim/1, pool_stats/1, lease_size/1,
         lease_write/3, lease_read/3, lease_view/1,
         inflate_at/3, inflate_batch/2, inflate_stream_new/3, inflate_stream_reset/3, inflate_stream_feed/2, extract/3,
         archive_open/3, archive_close/1, archive_find/2, archive_entries/1, archive_read/2, archive_list/2, archive_verify/2,
         archive_read_at/4, archive_checkpoints_export/2, archive_checkpoints_import/3,
         archive_set_checkpoint_limits/3, archive_reader_open/2, archive_reader_read/2, archive_reader_close/1]).

-on_load(init/0).

-define(NOT_LOADED, erlang:nif_error({not_loaded, [{module, ?MODULE}, {line, ?LINE}]})).

init() ->
    erlang:load_nif(filename:join(priv_dir(), "bufkit_nif"), 0).

priv_dir() ->
    case code:priv_dir(bufkit) of
        {error, bad_name} ->
            % Not installed as an OTP application (e.g. run from the source tree): priv/ is beside ebin/.
            filename:join(filename:dirname(filename:dirname(code:which(?MODULE))), "priv");
        Dir ->
            Dir
    end.

version() -> ?NOT_LOADED.
abi_version() -> ?NOT_LOADED.
test_panic() -> ?NOT_LOADED.
buffer_new(_Options) -> ?NOT_LOADED.
buffer_append(_Buffer, _Binary) -> ?NOT_LOADED.
buffer_append_iolist(_Buffer, _IoList) -> ?NOT_LOADED.
inflate_stream_new(_Format, _Origin, _Size) -> ?NOT_LOADED.
inflate_stream_reset(_Stream, _Origin, _Size) -> ?NOT_LOADED.
inflate_stream_feed(_Stream, _Binary) -> ?NOT_LOADED.
buffer_reserve(_Buffer, _Additional) -> ?NOT_LOADED.
buffer_clear(_Buffer) -> ?NOT_LOADED.
buffer_stats(_Buffer) -> ?NOT_LOADED.
buffer_to_binary(_Buffer) -> ?NOT_LOADED.
buffer_flatten(_Buffer) -> ?NOT_LOADED.
buffer_free(_Buffer) -> ?NOT_LOADED.
pool_new(_Options) -> ?NOT_LOADED.
pool_acquire(_Pool, _Size) -> ?NOT_LOADED.
pool_release(_Pool, _Lease) -> ?NOT_LOADED.
pool_trim(_Pool) -> ?NOT_LOADED.
pool_stats(_Pool) -> ?NOT_LOADED.
lease_size(_Lease) -> ?NOT_LOADED.
lease_write(_Lease, _Offset, _Data) -> ?NOT_LOADED.
lease_read(_Lease, _Offset, _Length) -> ?NOT_LOADED.
lease_view(_Lease) -> ?NOT_LOADED.
inflate_at(_Binary, _Offset, _Size) -> ?NOT_LOADED.
inflate_batch(_Binary, _Requests) -> ?NOT_LOADED.
extract(_Archive, _Dest, _Options) -> ?NOT_LOADED.
archive_open(_Path, _Holding, _LocalHeaders) -> ?NOT_LOADED.
archive_close(_Archive) -> ?NOT_LOADED.
archive_find(_Archive, _Name) -> ?NOT_LOADED.
archive_entries(_Archive) -> ?NOT_LOADED.
archive_verify(_Archive, _Threads) -> ?NOT_LOADED.
archive_read(_Archive, _Index) -> ?NOT_LOADED.
archive_read_at(_Archive, _Index, _Offset, _Length) -> ?NOT_LOADED.
archive_checkpoints_export(_Archive, _Index) -> ?NOT_LOADED.
archive_checkpoints_import(_Archive, _Index, _Bytes) -> ?NOT_LOADED.
archive_set_checkpoint_limits(_Archive, _Span, _Budget) -> ?NOT_LOADED.
archive_list(_Archive, _Pattern) -> ?NOT_LOADED.
archive_reader_open(_Archive, _Index) -> ?NOT_LOADED.
archive_reader_read(_Reader, _Max) -> ?NOT_LOADED.
archive_reader_close(_Reader) -> ?NOT_LOADED.
