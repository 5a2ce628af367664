%% Reading every asset of an archive in place from Erlang: bufkit:archive_open + archive_read per
%% entry, against OTP's zip:zip_open + zip:zip_get per entry (the in-place reader an Erlang
%% programmer has) and zip:unzip(Zip, [memory]) (all at once). One VM, alternating rounds, medians.
%% Usage: erlc in_place_bench.erl && erl -noshell -pa EBIN -pa . -eval 'in_place_bench:run(Zip, Rounds), halt().'
%%        in_place_bench:make(Zip) writes the 200-asset archive it is meant for.
-module(in_place_bench).
-export([run/2, make/1]).

make(Zip) ->
    rand:seed(exsss, {1, 2, 3}),
    Files = [{"assets/js/m" ++ integer_to_list(I) ++ ".js", js(30000 + rand:uniform(30000))} || I <- lists:seq(1, 200)],
    {ok, _} = zip:create(Zip, Files),
    ok.

js(N) ->
    Words = [<<"function">>, <<"return">>, <<"const">>, <<"value">>, <<"this">>, <<"=>">>, <<"{">>, <<"}">>, <<";\n">>],
    iolist_to_binary(lists:sublist(lists:flatten([[lists:nth(rand:uniform(9), Words), " "] || _ <- lists:seq(1, N div 4)]), N)).

bufkit_all(Zip) ->
    {ok, A} = bufkit:archive_open(Zip),
    lists:sum([byte_size(element(2, bufkit:archive_read(A, I))) || {I, _, _, file} <- bufkit:archive_entries(A)]).

zip_get_all(Zip) ->
    {ok, H} = zip:zip_open(Zip, [memory]),
    {ok, Entries} = zip:zip_list_dir(H),
    Bytes = lists:sum([begin {ok, {_, B}} = zip:zip_get(Name, H), byte_size(B) end
                       || {zip_file, Name, _, _, _, _} <- Entries]),
    ok = zip:zip_close(H),
    Bytes.

unzip_all(Zip) ->
    {ok, Files} = zip:unzip(Zip, [memory]),
    lists:sum([byte_size(B) || {_, B} <- Files]).

time_of(F) ->
    {T, Bytes} = timer:tc(F),
    {T / 1000, Bytes}.

median(L) -> lists:nth((length(L) + 1) div 2, lists:sort(L)).

run(Zip, Rounds) ->
    Rs = [{time_of(fun() -> bufkit_all(Zip) end), time_of(fun() -> zip_get_all(Zip) end), time_of(fun() -> unzip_all(Zip) end)}
          || _ <- lists:seq(1, Rounds + 1)],
    [_Warm | Kept] = Rs,
    {{_, B1}, {_, B2}, {_, B3}} = hd(Kept),
    B1 = B2, B2 = B3,
    Bk = median([T || {{T, _}, _, _} <- Kept]),
    Zg = median([T || {_, {T, _}, _} <- Kept]),
    Uz = median([T || {_, _, {T, _}} <- Kept]),
    io:format("| archive_open + archive_read each (bufkit) | ~.2f ms | 1.00x |~n", [Bk]),
    io:format("| zip:zip_open + zip:zip_get each (OTP) | ~.2f ms | ~.2fx |~n", [Zg, Zg / Bk]),
    io:format("| zip:unzip(Zip, [memory]) (OTP) | ~.2f ms | ~.2fx |~n", [Uz, Uz / Bk]),
    io:format("(~p bytes read each way, ~p rounds, medians)~n", [B1, Rounds]).
