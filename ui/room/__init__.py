"""The class room: an instructor's room, students' anonymous seats, their guesses, the live panel.

- session.py: this session's seat and every call that reaches the store (the Streamlit side)
- views.py: what the room draws (the sidebar's class section, the join card, the instructor's panel)
- chart.py: the distribution of a class's guesses
- store.py: the rooms, seats and guesses in SQL (SQLite or PostgreSQL), nothing of Streamlit
- config.py: which database the store uses
- passes.py: the app's cookie route, so that a seat (and the instructor's) outlives a reload
- results.py: a room's results per question and vote (share right, the shift, the most missed, the CSV), pure
- plan.py: lesson plans (lessons/*.toml, or a link's), checked against the pages' controls and questions
- lesson.py: a lesson in the room (Previous/Next, students following), the lesson built from views, the results dialog
- push.py: the watcher that reruns a waiting student's page when the room moves (Reveal, the instructor's view)
"""
