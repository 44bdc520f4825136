"""The class room: an instructor's room, students' anonymous seats, their guesses, the live panel.

- session.py: the Streamlit side's calls (the questions widget's, the shell's), the sidebar's class section
- seating.py: this session's seat (taken by a new room, a code, a link or a cookie; given up) and every store call
- follow.py: a student following the instructor's view, or waiting for a Reveal; the instructor's view written
- panel.py: the instructor's live panel of a page's questions and what its buttons do (reveal, reset, the votes)
- views.py: what the room draws (the sidebar's class section, the join card, the instructor's panel)
- chart.py: the distribution of a class's guesses
- store.py: the rooms, seats and guesses in SQL (SQLite or PostgreSQL), nothing of Streamlit
  its parts, composed into `store.Store`: store_records.py (bounds, statuses, records), store_inputs.py (what comes
  in, checked, hashed or sealed), store_tables.py (the tables and migrations), store_db.py (transactions, the schema
  on first use), store_rooms.py (rooms, views, lessons, passes), store_seats.py (seats, presence, the door),
  store_guesses.py (guesses, reveals, the two votes), store_results.py (the panel's reads, the results)
- config.py: which database the store uses
- passes.py: the app's cookie route, so that a seat (and the instructor's) outlives a reload
- results.py: a room's results per question and vote (share right, the shift, the most missed, the CSV), pure
- plan.py: lesson plans (lessons/*.toml, or a link's), checked against the pages' controls and questions
- lesson.py: a lesson in the room (Previous/Next, students following), the results dialog
- lesson_builder.py: the sidebar's "Build a lesson" box: a lesson from the views on screen, with questions, as a link
- guard.py: what one visitor may ask of this process (wrong codes tried, sessions per address)
- push.py: the watcher that reruns a waiting student's page when the room moves (Reveal, the instructor's view)
"""
