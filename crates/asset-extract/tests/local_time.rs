//! DOS times are local times: each converts to the instant `mktime` gives, in zones with daylight
//! saving time, half-hour offsets and changes of a whole day, on and around the days they change.
//! A binary of its own: it sets `TZ`, which the whole process reads. Unix only: Windows reads its
//! zone from the system, not from `TZ`.
#![cfg(unix)]

use asset_extract::Mtime;

unsafe extern "C" {
    /// Reads `TZ` again (POSIX; the `libc` crate does not bind it).
    fn tzset();
}

/// The DOS date and time of a local time (2-second resolution).
fn dos(year: u32, month: u32, day: u32, hour: u32, minute: u32, second: u32) -> u32 {
    (((year - 1980) << 9 | month << 5 | day) << 16) | (hour << 11 | minute << 5 | (second / 2))
}

/// `mktime` itself, with the zone's rules deciding daylight saving time.
fn mktime(year: u32, month: u32, day: u32, hour: u32, minute: u32, second: u32) -> Option<i64> {
    // SAFETY: an all-zero `tm` is a valid value (every field an integer, tm_zone a null pointer).
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    (tm.tm_year, tm.tm_mon, tm.tm_mday) = (year as i32 - 1900, month as i32 - 1, day as i32);
    (tm.tm_hour, tm.tm_min, tm.tm_sec, tm.tm_isdst) = (hour as i32, minute as i32, second as i32, -1);
    // SAFETY: `tm` is a valid, writable struct tm.
    let secs = unsafe { libc::mktime(&mut tm) };
    #[allow(clippy::useless_conversion, reason = "time_t is 32 bits on some targets")]
    (secs != -1).then_some(i64::from(secs))
}

#[test]
fn dos_times_convert_as_mktime_converts_them_in_every_kind_of_zone() {
    // (zone, days around which its offset changes)
    type Day = (u32, u32, u32); // year, month, day
    let zones: [(&str, &[Day]); 5] = [
        ("Europe/Berlin", &[(2021, 3, 28), (2021, 10, 31), (1996, 10, 27)]),
        ("America/St_Johns", &[(2022, 3, 13), (2022, 11, 6)]), // -3:30, changes at 02:00 local
        ("Australia/Lord_Howe", &[(2020, 4, 5), (2020, 10, 4)]), // a change of half an hour
        ("Pacific/Apia", &[(2011, 12, 29), (2011, 12, 30), (2011, 12, 31)]), // a day skipped
        ("UTC", &[(2000, 2, 29)]),
    ];
    for (zone, days) in zones {
        assert!(std::path::Path::new("/usr/share/zoneinfo").join(zone).exists() || zone == "UTC", "no {zone}");
        // SAFETY: this binary's one test sets TZ before any conversion, from its only thread
        // using the environment; tzset then reads it for both ways of converting.
        unsafe {
            std::env::set_var("TZ", zone);
            tzset();
        }
        // A fresh thread for each zone: conversions are remembered per thread.
        let days = days.to_vec();
        std::thread::spawn(move || {
            let mut checked = 0;
            for (year, month, day) in days {
                // Every 2 seconds in the hours where changes happen, every 10 minutes otherwise,
                // on the day before, the day and the day after.
                for d in [day - 1, day, day + 1].into_iter().filter(|d| (1..=31).contains(d)) {
                    for hour in 0..24 {
                        let step = if (1..=4).contains(&hour) { 2 } else { 600 };
                        for s in (0..3600).step_by(step) {
                            let (minute, second) = (s / 60, s % 60);
                            let got = Mtime::Dos(dos(year, month, d, hour, minute, second)).unix();
                            let want = mktime(year, month, d, hour, minute, second).map(|secs| (secs, 0));
                            assert_eq!(got, want, "{zone} {year}-{month}-{d} {hour}:{minute}:{second}");
                            checked += 1;
                        }
                    }
                }
            }
            // Across the whole DOS range, a time a month.
            for year in 1980..2108 {
                for month in 1..=12 {
                    let got = Mtime::Dos(dos(year, month, 15, 12, 34, 56)).unix();
                    assert_eq!(got, mktime(year, month, 15, 12, 34, 56).map(|secs| (secs, 0)), "{zone} {year}-{month}");
                }
            }
            assert!(checked > 10_000);
        })
        .join()
        .unwrap();
    }
}
